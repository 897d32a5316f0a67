// Where an Idempotency-Key's first response body is kept. D1 refuses a row over 2,000,000 bytes,
// and a claim of 200 tokens answers up to about 10 MB (every asset repeats its metadata and
// collection; gzip's 32 KiB window does not reach across assets that large), so a large body
// goes to R2, strongly consistent like D1, and the row keeps a pointer to it. Decision 52.
import { sha256Hex } from "./auth/keys";

const R2_POINTER = "r2:";
/** Smaller bodies stay in the row: one read to replay them. */
const IN_ROW_LIMIT_BYTES = 256 * 1024;

const utf8 = new TextEncoder();

/**
 * One object per stored response, under its (project, key); the key is hashed because clients
 * choose its characters. Never reused: a key used again after it expired gets a new object, so
 * deleting the expired one's object (the sweep, or the reuse itself) cannot take the new one.
 */
const responseObjectKey = async (projectId: string, key: string) => `idempotency/${projectId}/${await sha256Hex(key)}/${crypto.randomUUID()}`;

/** The object a stored body points to, or null when the body is in the row. */
export const objectOf = (stored: string | null) => (stored?.startsWith(R2_POINTER) ? stored.slice(R2_POINTER.length) : null);

/** What the row stores: the body itself, or a pointer to the R2 object written here. */
export async function storeResponseBody(bucket: R2Bucket, projectId: string, key: string, body: string): Promise<string> {
  if (utf8.encode(body).length <= IN_ROW_LIMIT_BYTES) return body;
  const objectKey = await responseObjectKey(projectId, key);
  await bucket.put(objectKey, body, { httpMetadata: { contentType: "application/json" } });
  return R2_POINTER + objectKey;
}

/** SQL LIKE pattern of a stored body that points to R2. */
export const IN_R2_PATTERN = `${R2_POINTER}%`;

export async function loadResponseBody(bucket: R2Bucket, stored: string): Promise<string> {
  const objectKey = objectOf(stored);
  if (objectKey === null) return stored;
  const object = await bucket.get(objectKey);
  if (!object) throw new Error(`the stored response ${objectKey} is missing`);
  return object.text();
}
