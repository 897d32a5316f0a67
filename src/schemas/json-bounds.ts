// Bounds for client JSON the schemas cannot type (metadata `properties`, attribute values).
// V8 parses JSON nested hundreds of thousands deep, and such a value passed validation to be
// stored and served; JSON.stringify, recursive, overflows its stack on it (in Node at about 5,000
// levels). Decision 48.

/** Deeper than any real metadata; far below where JSON.stringify runs out of stack. */
export const MAX_JSON_DEPTH = 32;

const utf8 = new TextEncoder();

/**
 * The UTF-8 size of `JSON.stringify(value)`, walked without recursion; null when the value nests
 * deeper than `maxDepth` (Infinity to measure whatever the depth).
 */
export function jsonByteSize(value: unknown, maxDepth = MAX_JSON_DEPTH): number | null {
  let bytes = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node !== null && typeof node === "object") {
      if (depth >= maxDepth) return null;
      const entries = Array.isArray(node) ? node.map((item) => [undefined, item] as const) : Object.entries(node);
      // Brackets, and a comma between entries.
      bytes += 2 + Math.max(entries.length - 1, 0);
      for (const [key, item] of entries) {
        if (key !== undefined) bytes += utf8.encode(JSON.stringify(key)).length + 1;
        pending.push([item, depth + 1]);
      }
    } else {
      // Parsed JSON holds only strings, finite numbers, booleans and null: each stringifies flat.
      bytes += utf8.encode(JSON.stringify(node) ?? "null").length;
    }
  }
  return bytes;
}

export const withinJsonDepth = (value: unknown) => jsonByteSize(value) !== null;
export const JSON_DEPTH_MESSAGE = `must not nest deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * The path to the first `__proto__` key in a parsed JSON value (looked for down to
 * MAX_JSON_DEPTH, below which the depth check refuses the value anyway), or null. JSON.parse
 * keeps such a key as data, but a record parse or any `object[key] = value` copy turns it into a
 * prototype and loses it, and consumers' naive deep merges of served metadata turn it into
 * prototype pollution. Decision 98.
 */
export function prototypeKeyPath(value: unknown): (string | number)[] | null {
  const pending: [unknown, (string | number)[]][] = [[value, []]];
  while (pending.length > 0) {
    const [node, path] = pending.pop()!;
    if (node === null || typeof node !== "object" || path.length >= MAX_JSON_DEPTH) continue;
    if (Array.isArray(node)) {
      node.forEach((item, index) => pending.push([item, [...path, index]]));
      continue;
    }
    for (const [key, item] of Object.entries(node)) {
      if (key === PROTOTYPE_KEY) return [...path, key];
      pending.push([item, [...path, key]]);
    }
  }
  return null;
}

const PROTOTYPE_KEY = "__proto__";
export const PROTOTYPE_KEY_MESSAGE = `must not use the key "${PROTOTYPE_KEY}"`;
