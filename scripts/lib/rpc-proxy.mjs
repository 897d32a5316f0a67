// A misbehaving JSON-RPC proxy for fault tests and the soak benchmark: it sits in front of a
// real node and, by rule, fails calls before they reach the node, loses the answer after the
// node acted, or delays them. Rules are set over HTTP (POST /__faults) so tests running inside
// workerd can drive it.
//
// Rule: { method: "eth_sendRawTransaction" | "*", action: "fail" | "lose-response" | "delay" |
//         "answer-error" | "answer-null", times?: number (default: forever), probability?: number
//         (default 1), delayMs?: number, maxDelayMs?: number (random delay up to this),
//         error?: { code: number, message: string } (for answer-error),
//         afterMethod?: string (the rule applies only once a call of this method was answered
//         since the rules were set) }
//   fail           answer HTTP 503 without forwarding (the node never sees the call)
//   lose-response  forward, then answer HTTP 502 (the node acted; the caller can't know)
//   delay          forward after delayMs (or a random 0..maxDelayMs)
//   answer-error   forward, then answer with rule.error as a JSON-RPC error: a gateway or another
//                  node behind a load balancer that says no after the node took the call
//   answer-null    answer `result: null` without forwarding: a replica that has not seen it yet
// onCall (optional) sees every call once it is answered: { payload, fault, status, text, startedAt,
// endedAt } (fault = the rule's action or null; times from Date.now()). The soak keeps each
// broadcast this way, so a transaction's whole history can be rebuilt when one goes wrong.
import http from "node:http";

const ANSWER_COUNTERS = { "answer-error": ["erred", "erredByMethod"], "answer-null": ["nulled", "nulledByMethod"] };

export async function startRpcProxy({ target, port = 0, onCall }) {
  let rules = [];
  // Methods answered since the rules were last set (for rules with `afterMethod`).
  const answeredSinceRulesSet = new Set();
  // byMethod counts every call; the *ByMethod maps say which calls a fault hit (a batch counts
  // under its methods joined with ","), so a soak can report where its faults landed.
  const stats = {
    calls: 0,
    failed: 0,
    lost: 0,
    delayed: 0,
    erred: 0,
    nulled: 0,
    byMethod: {},
    failedByMethod: {},
    lostByMethod: {},
    delayedByMethod: {},
    erredByMethod: {},
    nulledByMethod: {},
  };
  const countFault = (map, methods) => {
    const key = methods.join(",");
    map[key] = (map[key] ?? 0) + 1;
  };

  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });

  const forward = async (body) => {
    const response = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: response.status, text: await response.text() };
  };

  // A JSON-RPC answer of our own for each call of the payload (a batch gets a batch).
  const rewrite = (payload, answer) => {
    const one = (call) => ({ jsonrpc: "2.0", id: call?.id ?? null, ...answer });
    return JSON.stringify(Array.isArray(payload) ? payload.map(one) : one(payload));
  };

  const methodsOf = (payload) => (Array.isArray(payload) ? payload.map((p) => p?.method) : [payload?.method]);

  function matchRule(methods) {
    for (const rule of rules) {
      if (rule.times !== undefined && rule.times <= 0) continue;
      if (rule.afterMethod && !answeredSinceRulesSet.has(rule.afterMethod)) continue;
      if (rule.method !== "*" && !methods.includes(rule.method)) continue;
      if (rule.probability !== undefined && Math.random() >= rule.probability) continue;
      if (rule.times !== undefined) rule.times -= 1;
      return rule;
    }
    return null;
  }

  const server = http.createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      if (req.url === "/__faults") {
        if (req.method === "POST") rules = JSON.parse(body || "[]");
        if (req.method === "DELETE") rules = [];
        answeredSinceRulesSet.clear();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ rules, stats }));
        return;
      }
      const payload = JSON.parse(body);
      const startedAt = Date.now();
      const seen = (fault, status, text) => {
        for (const method of methodsOf(payload)) answeredSinceRulesSet.add(method);
        try {
          onCall?.({ payload, fault, status, text, startedAt, endedAt: Date.now() });
        } catch {
          // an observer's bug must not change what the caller gets
        }
      };
      const methods = methodsOf(payload);
      stats.calls += 1;
      for (const method of methods) stats.byMethod[method] = (stats.byMethod[method] ?? 0) + 1;
      const rule = matchRule(methods);
      if (rule?.action === "fail") {
        stats.failed += 1;
        countFault(stats.failedByMethod, methods);
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("injected failure");
        seen("fail", 503, "injected failure");
        return;
      }
      if (rule?.action === "delay") {
        stats.delayed += 1;
        countFault(stats.delayedByMethod, methods);
        const ms = rule.delayMs ?? Math.floor(Math.random() * (rule.maxDelayMs ?? 1000));
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
      // A JSON-RPC answer of the proxy's own, counted under the rule's action.
      const answerWith = (answer) => {
        const [count, byMethod] = ANSWER_COUNTERS[rule.action];
        stats[count] += 1;
        countFault(stats[byMethod], methods);
        const text = rewrite(payload, answer);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(text);
        seen(rule.action, 200, text);
      };
      if (rule?.action === "answer-null") return answerWith({ result: null });
      const answer = await forward(body);
      if (rule?.action === "answer-error") return answerWith({ error: rule.error ?? { code: -32000, message: "upstream error" } });
      if (rule?.action === "lose-response") {
        stats.lost += 1;
        countFault(stats.lostByMethod, methods);
        res.writeHead(502, { "content-type": "text/plain" });
        res.end("injected lost response");
        seen("lose-response", answer.status, answer.text);
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(answer.text);
      seen(rule?.action ?? null, answer.status, answer.text);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });

  // Node closes idle keep-alive sockets after 5 s, and a client that reuses one at that moment
  // gets "connection lost": a failure nobody injected. Keep them open longer than any caller idles.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    setRules(next) {
      rules = next;
      answeredSinceRulesSet.clear();
    },
    stats,
    async stop() {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
