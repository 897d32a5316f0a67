// Service side of the claims benchmark: a small client for the project-wallet API (deploy a
// drop, claim, read transactions) with the keys of one project.
import { waitUntil } from "./load.mjs";

export function apiClient(baseUrl, { apiKey, secretKey }) {
  const request = async (method, pathName, body) => {
    const response = await fetch(`${baseUrl}${pathName}`, {
      method,
      headers: body
        ? { authorization: `Bearer ${secretKey}`, "content-type": "application/json" }
        : { "x-api-key": apiKey },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // non-JSON error page: keep the text in the error below
    }
    return { status: response.status, body: json ?? text };
  };
  return {
    get: (pathName) => request("GET", pathName),
    post: (pathName, body) => request("POST", pathName, body),
  };
}

/** Polls one transaction until it leaves `pending`; null if it is still pending at the deadline. */
export async function waitForTransaction(api, id, timeoutMs = 60_000) {
  let last;
  const done = await waitUntil(
    async () => {
      last = await api.get(`/v1/transactions/${id}`);
      if (last.status !== 200) throw new Error(`GET /v1/transactions/${id}: ${last.status} ${JSON.stringify(last.body)}`);
      return last.body.status !== "pending";
    },
    { intervalMs: 200, timeoutMs },
  );
  return done === null ? null : last.body;
}

/** `count` whitelist lines (`address,maxClaimable,price`) of made-up addresses. */
export function benchWhitelist(count) {
  return Array.from({ length: count }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")},1,0`).join("\n");
}

/** The benchmark's drop, deployed by the project wallet and confirmed before timing starts; `allowlistEntries` > 0 gives it a whitelist. */
export async function deployBenchDrop(api, { allowlistEntries = 0 } = {}) {
  const deployed = await api.post("/v1/project-wallet/drops/deploy", {
    name: "Bench",
    metadataStorageType: "self-hosted",
    baseUri: "https://example.com/",
    ...(allowlistEntries > 0 ? { whitelist: benchWhitelist(allowlistEntries) } : {}),
  });
  if (deployed.status !== 201) throw new Error(`deploy: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  const tx = await waitForTransaction(api, deployed.body.transactions[0].id);
  if (tx?.status !== "confirmed") throw new Error(`deploy transaction ${deployed.body.transactions[0].id} ended ${tx?.status ?? "still pending"}`);
  return deployed.body.drop.contractAddress;
}

export const CLAIM_PATH = "/v1/project-wallet/drops/claim";

/** The body of one claim of one token. */
export const claimRequest = (contractAddress, recipientAddress) => ({ contractAddress, recipientAddress, quantity: 1 });

/** One claim of one token to recipients[i]; 201 = accepted, with its predicted id and transaction (and the body, for the ceiling run). */
export function claimSender(api, contractAddress, recipients) {
  return async (i) => {
    const { status, body } = await api.post(CLAIM_PATH, claimRequest(contractAddress, recipients[i]));
    if (status !== 201) return { ok: false, status, error: body?.error?.code ?? String(body).slice(0, 120) };
    return { ok: true, status, tokenId: body.assets[0].tokenId, transactionId: body.transactions[0].id, recipient: recipients[i], body };
  };
}

/** The project's transactions still `pending` (pagination.total of a 1-item page). */
export async function pendingCount(api) {
  const { status, body } = await api.get("/v1/transactions?status=pending&limit=1");
  if (status !== 200) throw new Error(`GET /v1/transactions?status=pending: ${status} ${JSON.stringify(body)}`);
  return body.pagination.total;
}

/** Waits until nothing is pending; the time that was first seen, or null at the deadline. */
export function waitForNoPending(api, { intervalMs, timeoutMs }) {
  return waitUntil(async () => (await pendingCount(api)) === 0, { intervalMs, timeoutMs });
}

/** Each accepted claim's transaction as the API shows it now (status and latest hash). */
export async function readTransactions(api, ids, concurrency) {
  const out = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      const { status, body } = await api.get(`/v1/transactions/${ids[i]}`);
      out[i] = status === 200 ? body : { status: `http ${status}`, transactionHash: null };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}
