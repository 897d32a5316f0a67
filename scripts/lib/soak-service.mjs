// Service side of the soak: extra keys for one project and a client that spreads requests over
// them round-robin. wrangler.toml limits every key to 3,000 requests a minute; one key would
// turn the soak into a test of the rate limiter, so claims rotate over secret keys and reads
// over API keys. Each answer keeps its x-request-id: it is the evidence when a claim goes wrong.

async function adminPost(service, pathName, body) {
  const response = await fetch(`${service.baseUrl}${pathName}`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(json)}`);
  return json.key;
}

/** The project's own keys plus `secret` − 1 more secret keys and `api` − 1 more API keys. */
export async function projectKeys(service, project, { secret, api }) {
  const more = (kind, n) => Promise.all(Array.from({ length: Math.max(0, n - 1) }, () => adminPost(service, `/v1/admin/projects/${project.projectId}/keys`, { kind })));
  const [secrets, apis] = await Promise.all([more("secret", secret), more("api", api)]);
  return { secretKeys: [project.secretKey, ...secrets], apiKeys: [project.apiKey, ...apis] };
}

/** get/post with the next key of the matching kind; { status, body, requestId }. onAnswer() is called for every HTTP answer. */
export function roundRobinClient(baseUrl, { secretKeys, apiKeys }, { onAnswer = () => {} } = {}) {
  let s = 0;
  let a = 0;
  const request = async (method, pathName, body) => {
    const headers = body
      ? { authorization: `Bearer ${secretKeys[s++ % secretKeys.length]}`, "content-type": "application/json" }
      : { "x-api-key": apiKeys[a++ % apiKeys.length] };
    // Reads give up after a minute (a status poll must not hang the run); claims wait as long as
    // the service takes: abandoning one would leave its outcome unknown.
    const response = await fetch(`${baseUrl}${pathName}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : { signal: AbortSignal.timeout(60_000) }) });
    const text = await response.text();
    onAnswer();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // a non-JSON error page: keep its start as the code below
    }
    return { status: response.status, body: json ?? text, requestId: response.headers.get("x-request-id") };
  };
  return { get: (p) => request("GET", p), post: (p, b) => request("POST", p, b) };
}

/** One claim of one token to recipients[i], with what the evidence needs when it goes wrong. */
export function soakClaimSender(client, contractAddress, recipients) {
  return async (i) => {
    let answer;
    try {
      answer = await client.post("/v1/project-wallet/drops/claim", { contractAddress, recipientAddress: recipients[i], quantity: 1 });
    } catch (error) {
      // No answer at all (wrangler dev gone, connection refused): a rejection the client saw.
      return { ok: false, status: "no answer", requestId: null, recipient: recipients[i], error: "fetch failed", message: error.cause?.code ?? error.message };
    }
    const { status, body, requestId } = answer;
    const base = { status, requestId, recipient: recipients[i] };
    // A non-JSON answer (wrangler's own 503 page) is labelled by its first sentence.
    if (status !== 201) return { ok: false, ...base, error: body?.error?.code ?? String(body).split(/(?<=\.)\s/)[0].slice(0, 80), message: body?.error?.message ?? null };
    return { ok: true, ...base, tokenId: body.assets[0].tokenId, transactionId: body.transactions[0].id, hash: body.transactions[0].transactionHash };
  };
}

/** The project's transactions still `pending`. */
export async function pendingTotal(client) {
  const { status, body } = await client.get("/v1/transactions?status=pending&limit=1");
  if (status !== 200) throw new Error(`GET /v1/transactions?status=pending: ${status} ${JSON.stringify(body)}`);
  return body.pagination.total;
}

/**
 * Each id's transaction as the API shows it now; a non-200 answer is kept as its status. Stops
 * asking after `budgetMs` (a service that answers in minutes would take hours for thousands of
 * ids): ids not read are left undefined for the caller to take from D1.
 */
export async function readAll(client, ids, { concurrency = 16, budgetMs = 300_000 } = {}) {
  const out = new Array(ids.length);
  const deadline = Date.now() + budgetMs;
  let next = 0;
  const worker = async () => {
    while (next < ids.length && Date.now() < deadline) {
      const i = next++;
      for (let attempt = 0; ; attempt++) {
        const { status, body } = await client.get(`/v1/transactions/${ids[i]}`).catch((error) => ({ status: 599, body: error.message }));
        // A 429 or 5xx here is the reader's problem, not the claim's: ask again.
        if ((status === 429 || status >= 500) && attempt < 5 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        out[i] = status === 200 ? body : { id: ids[i], status: `http ${status}`, transactionHash: null };
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}
