// Webhook signatures: `Mintyard-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`,
// one `v1` per secret in use (two while a rotated-out secret is still honoured, decision 88).
// Each endpoint's secret is derived (HKDF-SHA256) from WALLET_MNEMONIC, the endpoint id and the
// secret's version, so no signing secret is ever stored; it is shown once, when the endpoint is
// created or its secret rotated.
const encoder = new TextEncoder();

const base64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Version 1 is the endpoint id alone, so an endpoint's first secret needs no version in its derivation. */
const derivationInfo = (endpointId: string, version: number) => (version === 1 ? endpointId : `${endpointId}#${version}`);

export async function endpointSecret(masterSecret: string, endpointId: string, version = 1): Promise<string> {
  const master = await crypto.subtle.importKey("raw", encoder.encode(masterSecret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode("mintyard/webhook-signing/v1"), info: encoder.encode(derivationInfo(endpointId, version)) },
    master,
    256,
  );
  return `whsec_${base64url(bits)}`;
}

/** The secrets deliveries to this endpoint are signed with at `nowMs`: the current one first. */
export async function signingSecrets(
  masterSecret: string,
  endpoint: { id: string; secretVersion: number; previousSecretUntil: Date | null },
  nowMs: number,
): Promise<string[]> {
  const current = await endpointSecret(masterSecret, endpoint.id, endpoint.secretVersion);
  const previousLive = endpoint.secretVersion > 1 && endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil.getTime() > nowMs;
  return previousLive ? [current, await endpointSecret(masterSecret, endpoint.id, endpoint.secretVersion - 1)] : [current];
}

export async function signatureHeader(secrets: readonly string[], timestampSeconds: number, body: string): Promise<string> {
  const signed = encoder.encode(`${timestampSeconds}.${body}`);
  const macs = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return `v1=${hex(await crypto.subtle.sign("HMAC", key, signed))}`;
    }),
  );
  return [`t=${timestampSeconds}`, ...macs].join(",");
}
