// Webhook signatures: `Mintyard-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
// Each endpoint's secret is derived (HKDF-SHA256) from WALLET_MNEMONIC and the endpoint id, so
// no signing secret is ever stored; it is shown once, when the endpoint is created.
const encoder = new TextEncoder();

const base64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function endpointSecret(masterSecret: string, endpointId: string): Promise<string> {
  const master = await crypto.subtle.importKey("raw", encoder.encode(masterSecret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode("mintyard/webhook-signing/v1"), info: encoder.encode(endpointId) },
    master,
    256,
  );
  return `whsec_${base64url(bits)}`;
}

export async function signatureHeader(secret: string, timestampSeconds: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestampSeconds}.${body}`));
  return `t=${timestampSeconds},v1=${hex(mac)}`;
}
