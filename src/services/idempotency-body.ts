// How a stored response body is kept in `idempotency_keys.response_body`. D1 refuses a row over
// 2,000,000 bytes, and a claim of 200 tokens answers up to about 10 MB (every asset repeats its
// metadata and collection), so large bodies are kept gzipped, as base64 behind a prefix no JSON
// body starts with. Decision 52.

const GZIP_PREFIX = "gzip+base64:";
/** Smaller bodies are kept as they are: readable in D1, no CPU spent. */
const PLAIN_LIMIT_BYTES = 256 * 1024;
/** What the row may hold, with room for its other columns. */
export const MAX_STORED_BODY_BYTES = 1_900_000;

const utf8 = new TextEncoder();

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const compressed = new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")));
  return new Uint8Array(await compressed.arrayBuffer());
}

async function gunzip(bytes: Uint8Array): Promise<string> {
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  // In chunks: spreading a whole megabyte into fromCharCode would exceed the argument limit.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  return btoa(binary);
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

/** The body as stored; null when even compressed it would not fit the row. */
export async function packResponseBody(body: string): Promise<string | null> {
  const bytes = utf8.encode(body);
  if (bytes.length <= PLAIN_LIMIT_BYTES) return body;
  const packed = GZIP_PREFIX + toBase64(await gzip(bytes));
  return packed.length <= MAX_STORED_BODY_BYTES ? packed : null;
}

export async function unpackResponseBody(stored: string): Promise<string> {
  return stored.startsWith(GZIP_PREFIX) ? gunzip(fromBase64(stored.slice(GZIP_PREFIX.length))) : stored;
}
