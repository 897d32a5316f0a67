// Evidence for a soak that finds a problem: every broadcast the Worker made (seen at the proxy,
// decoded: hash, nonce, fees, recipient, the node's answer or the injected fault), the D1
// `transactions` rows (the API does not show nonces), and per problem claim a timeline joining
// both with what the chain mined. Enough to explain a loss or a duplicate without a rerun.
import { spawn } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { decodeFunctionData, keccak256, parseTransaction } from "viem";
import { loadArtifact } from "./artifacts.mjs";
import { CHILD_ENV, ROOT } from "./stack.mjs";

const dropAbi = loadArtifact("src/chain/artifacts/drop-erc721.ts").abi;

function recipientOf(data) {
  try {
    const { functionName, args } = decodeFunctionData({ abi: dropAbi, data });
    return functionName === "mintTo" ? args[0].toLowerCase() : null;
  } catch {
    return null;
  }
}

/** onCall for startRpcProxy that keeps each eth_sendRawTransaction, decoded; t = ms since `origin`. */
export function broadcastRecorder(origin = Date.now()) {
  const sends = [];
  const onCall = ({ payload, fault, status, text, startedAt, endedAt }) => {
    if (Array.isArray(payload) || payload?.method !== "eth_sendRawTransaction") return;
    const raw = payload.params?.[0];
    const tx = parseTransaction(raw);
    let answer = `http ${status}`;
    try {
      const body = JSON.parse(text);
      answer = body.error ? `error ${body.error.code}: ${body.error.message}` : "accepted";
    } catch {
      // a plain-text answer (an injected failure)
    }
    sends.push({
      t: startedAt - origin,
      answeredAt: endedAt - origin,
      hash: keccak256(raw),
      nonce: tx.nonce,
      maxFeePerGas: String(tx.maxFeePerGas),
      to: tx.to,
      recipient: tx.data && tx.data !== "0x" ? recipientOf(tx.data) : null,
      fault,
      answer,
    });
  };
  return { onCall, sends, origin };
}

/** The project's D1 transaction rows, read with `wrangler d1 execute --local` from the run's state. */
export function d1Transactions(persistDir) {
  const sql = "select id, status, kind, nonce, transaction_hash, error_message, created_at, updated_at from transactions order by created_at";
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "d1", "execute", "DB", "--local", "--persist-to", persistDir, "--json", "--command", sql], {
      cwd: ROOT,
      env: CHILD_ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("exit", () => {
      try {
        resolve(JSON.parse(out)[0].results);
      } catch {
        resolve({ error: `wrangler d1 execute: ${(err || out).slice(0, 400)}` });
      }
    });
  });
}

/**
 * Per problem claim (request index), everything known: the request, its D1 row, every broadcast
 * to its recipient, what was mined for that recipient, and who got mined at each nonce it tried.
 */
export function timelines({ indices, results, d1Rows, sends, mined }) {
  const rowById = new Map(Array.isArray(d1Rows) ? d1Rows.map((r) => [r.id, r]) : []);
  const minedByNonce = new Map(mined.map((tx) => [tx.nonce, tx]));
  const requestOf = new Map(results.map((r) => [r.recipient.toLowerCase(), r.i]));
  return indices.map((i) => {
    const r = results[i];
    const recipient = r.recipient.toLowerCase();
    const mine = sends.filter((s) => s.recipient === recipient);
    const nonces = [...new Set(mine.map((s) => s.nonce))];
    return {
      request: r,
      d1: r.transactionId ? (rowById.get(r.transactionId) ?? "no row") : null,
      broadcasts: mine,
      minedForRecipient: mined.filter((tx) => tx.recipient === recipient),
      minedAtItsNonces: nonces.map((n) => {
        const tx = minedByNonce.get(n);
        return { nonce: n, mined: tx ? { ...tx, forRequest: requestOf.get(tx.recipient) ?? null } : null };
      }),
    };
  });
}

/** A timeline as a few readable lines for the console (the JSON evidence file has it all). */
export function formatTimeline(p) {
  const r = p.request;
  const d1 = p.d1 && typeof p.d1 === "object" ? `D1 ${p.d1.status} nonce ${p.d1.nonce} hash ${p.d1.transaction_hash}${p.d1.error_message ? ` (${p.d1.error_message})` : ""}` : `D1 ${p.d1 ?? "-"}`;
  return [
    `request ${r.i} ${r.requestId}: HTTP ${r.status}${r.ok ? ` tx ${r.transactionId} token ${r.tokenId}` : ` ${r.error}: ${r.message ?? ""}`} after ${Math.round(r.latencyMs)} ms; ${d1}`,
    ...p.broadcasts.map((s) => `  t=${s.t} ms (answered ${s.answeredAt}) nonce ${s.nonce} ${s.hash.slice(0, 12)}… maxFee ${s.maxFeePerGas}${s.fault ? ` [${s.fault}]` : ""}: ${s.answer}`),
    ...p.minedAtItsNonces.map((m) => `  nonce ${m.nonce} mined: ${m.mined ? `${m.mined.hash.slice(0, 12)}… block ${m.mined.block} ${m.mined.kind} for request ${m.mined.forRequest}` : "nothing"}`),
  ].join("\n");
}

/**
 * Open files of the workerd processes in `pgrp` (wrangler's process group) and their limit:
 * `fds` in all, of which `sockets` (TCP connections: requests in, RPC and wrangler's loopback
 * out) and `storage` (SQLite files: every live Durable Object keeps its database, journal and
 * shared memory open, so a backlog of pending transactions shows up there, three files per
 * watcher). { fds, sockets, storage, limit } or null off Linux.
 */
export function workerdFiles(pgrp) {
  try {
    const count = { fds: 0, sockets: 0, storage: 0, limit: null };
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      let stat;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "workerd" || Number(stat.slice(close + 2).split(" ")[2]) !== pgrp) continue;
      try {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) {
          count.fds += 1;
          let target = "";
          try {
            target = readlinkSync(`/proc/${pid}/fd/${fd}`);
          } catch {
            continue; // closed meanwhile
          }
          if (target.startsWith("socket:")) count.sockets += 1;
          else if (/\.sqlite(-wal|-shm)?$/.test(target)) count.storage += 1;
        }
        count.limit ??= Number(/Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1]) || null;
      } catch {
        // exited meanwhile
      }
    }
    return count;
  } catch {
    return null;
  }
}

// Lines of the wrangler log worth counting: each is a failure the engine did not handle, or a
// limit of the local runtime, and none of them shows in the API.
const LOG_PATTERNS = {
  "uncaught: cannot perform I/O on behalf of a different Durable Object": /Cannot perform I\/O on behalf of a different Durable Object/,
  "uncaught: promise will never complete": /Promise will never complete/,
  "workerd: too many open files": /Too many open files/,
  "TxWatcher.alarm caught an error and will retry": /"where":"TxWatcher\.alarm"/,
  "WalletSequencer.alarm error": /"where":"WalletSequencer\.alarm"/,
  "wrangler: worker restarted mid-request": /restarted mid-request/,
  "JavaScript heap out of memory": /heap out of memory|FatalProcessOutOfMemory/,
};

/**
 * A copy of wrangler's output for the evidence, capped: a runtime out of file descriptors can
 * print gigabytes of the same error (and has run wrangler out of memory doing so). The first
 * `maxBytes` and the last `tailBytes` are kept; every line is still counted against LOG_PATTERNS.
 * end() writes the tail and resolves to the counts.
 */
export function logTap(file, { maxBytes = 64 * 2 ** 20, tailBytes = 4 * 2 ** 20 } = {}) {
  const out = createWriteStream(file);
  const counts = Object.fromEntries(Object.keys(LOG_PATTERNS).map((k) => [k, 0]));
  const patterns = Object.entries(LOG_PATTERNS);
  let written = 0;
  let skipped = 0;
  let tail = "";
  let partial = "";
  return {
    write(chunk) {
      const text = chunk.toString("utf8");
      const lines = (partial + text).split("\n");
      partial = lines.pop();
      for (const line of lines) for (const [label, pattern] of patterns) if (pattern.test(line)) counts[label] += 1;
      if (written < maxBytes) {
        out.write(text);
        written += text.length;
      } else {
        skipped += text.length;
        tail = (tail + text).slice(-tailBytes);
      }
    },
    end() {
      if (skipped) out.write(`\n[… ${skipped - tail.length} bytes not kept …]\n${tail}`);
      return new Promise((resolve) => out.end(() => resolve(counts)));
    },
  };
}

/**
 * Everything about one nonce (the first one the chain is stuck at): each broadcast with it (whose
 * request, fault, the node's answer), its D1 rows and what the pool holds at it, as lines.
 */
export function nonceHistory({ nonce, sends, results, d1Rows, pooled }) {
  const byRecipient = new Map(results.map((r) => [r.recipient.toLowerCase(), r]));
  const owner = (recipient) => {
    if (!recipient) return "no recipient: a 0-value self-transfer (nonce fill)";
    const r = byRecipient.get(recipient);
    return r ? `request ${r.i} (HTTP ${r.status}${r.ok ? "" : `: ${r.message ?? r.error}`})` : `unknown recipient ${recipient}`;
  };
  const rows = Array.isArray(d1Rows) ? d1Rows.filter((r) => r.nonce === nonce) : [];
  const inPool = pooled.filter((tx) => tx.nonce === nonce);
  return [
    `nonce ${nonce}:`,
    ...sends.filter((s) => s.nonce === nonce).map((s) => `  t=${s.t} ms ${s.hash.slice(0, 12)}… maxFee ${s.maxFeePerGas} for ${owner(s.recipient)}${s.fault ? ` [${s.fault}]` : ""}: ${s.answer}`),
    `  D1 rows with this nonce: ${rows.length ? rows.map((r) => `${r.id} ${r.status}`).join(", ") : "none"}; in the pool at the end: ${inPool.length ? inPool.map((tx) => `${tx.hash.slice(0, 12)}… (${tx.section})`).join(", ") : "nothing"}`,
  ].join("\n");
}
