// Webhook signatures, as the service sends them: `Mintyard-Signature: t=<unix seconds>,v1=<hex>`
// where the hex is HMAC-SHA256(secret, "<t>.<raw body>") and the key is the secret's UTF-8
// bytes (the whole `whsec_…` string). WebCrypto only, so this runs in Node ≥ 20, browsers,
// Deno, Bun and Workers.
const encoder = new TextEncoder();
const HEX_MAC = /^[0-9a-fA-F]{64}$/;
const TIMESTAMP = /^[0-9]{1,15}$/;

type Body = string | Uint8Array | ArrayBuffer;

const bodyBytes = (body: Body) => (typeof body === "string" ? encoder.encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body));

async function mac(secret: string, timestamp: number, body: Body): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = encoder.encode(`${timestamp}.`);
  const payload = bodyBytes(body);
  const message = new Uint8Array(prefix.length + payload.length);
  message.set(prefix, 0);
  message.set(payload, prefix.length);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
const fromHex = (hex: string) => Uint8Array.from({ length: hex.length / 2 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));

/** Compares two MACs in time independent of where they differ. */
function equalMacs(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` → its timestamp and v1 signatures (several during a
 * secret rotation); null when there is no valid `t` or no `v1`. Other schemes are ignored.
 */
export function parseWebhookSignatureHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === "t") {
      if (timestamp !== undefined || !TIMESTAMP.test(value)) return null;
      timestamp = Number(value);
    } else if (name === "v1") {
      signatures.push(value);
    }
  }
  return timestamp === undefined || signatures.length === 0 ? null : { timestamp, signatures };
}

export interface VerifyWebhookSignatureOptions {
  /** The endpoint's signing secret (`whsec_…`), as shown when it was created. */
  secret: string;
  /** The raw request body exactly as received; re-serialised JSON will not verify. */
  body: Body;
  /** The `Mintyard-Signature` header (`t=…,v1=…`), or just the hex `v1` value (then pass `timestamp`). */
  signature: string;
  /** Unix seconds. Taken from the header when omitted; when both are given they must agree. */
  timestamp?: number | string;
  /** How far the timestamp may be from now, either way; default 300 s. `Infinity` turns the check off. */
  toleranceSeconds?: number;
  /** The current time in unix seconds (default: the clock). */
  now?: number;
}

/**
 * Whether a webhook request really comes from the service: the HMAC matches and the timestamp
 * is within the tolerance (which stops a captured request being replayed later). Never throws
 * for a malformed signature or timestamp; it answers false.
 */
export async function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): Promise<boolean> {
  const signature = options.signature.trim();
  let timestamp: number | undefined;
  let candidates: string[];
  if (signature.includes("=")) {
    const parsed = parseWebhookSignatureHeader(signature);
    if (!parsed) return false;
    timestamp = parsed.timestamp;
    candidates = parsed.signatures;
  } else {
    candidates = [signature];
  }
  if (options.timestamp !== undefined) {
    const given = String(options.timestamp).trim();
    if (!TIMESTAMP.test(given) || (timestamp !== undefined && Number(given) !== timestamp)) return false;
    timestamp = Number(given);
  }
  if (timestamp === undefined) return false;

  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!(tolerance >= 0) || Math.abs(now - timestamp) > tolerance) return false;

  const expected = await mac(options.secret, timestamp, options.body);
  let valid = false;
  for (const candidate of candidates) {
    // Every candidate is compared, so the time taken does not tell which one matched.
    if (HEX_MAC.test(candidate) && equalMacs(fromHex(candidate.toLowerCase()), expected)) valid = true;
  }
  return valid;
}

/** The `Mintyard-Signature` header the service would send for `body` at `timestamp`; for testing receivers. */
export async function signWebhookPayload(options: { secret: string; timestamp: number; body: Body }): Promise<string> {
  if (!Number.isInteger(options.timestamp) || options.timestamp < 0) throw new RangeError("timestamp must be unix seconds");
  return `t=${options.timestamp},v1=${toHex(await mac(options.secret, options.timestamp, options.body))}`;
}
