// The soak's faults. Two kinds: the RPC proxy's rules (failed and delayed calls, on from the
// first claim until everything has settled) and events done straight on anvil at set points of
// the run (mempool drops, a base-fee spike). Every event is logged with what it did, so the
// report states what the engine actually had to survive, not what was intended.
import { performance } from "node:perf_hooks";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Proxy rules: a failed call first, else maybe a delay (so delayed share = (1 − fail) × delay). */
export const soakRules = ({ failProbability, delayProbability, maxDelayMs }) => [
  { method: "*", action: "fail", probability: failProbability },
  { method: "*", action: "delay", probability: delayProbability, maxDelayMs },
];

/** The wallet's transactions in anvil's pool, as [{ section: "pending" (ready) | "queued" (behind a gap), hash, nonce, to, maxFeePerGas }]. */
async function walletPool(anvil, wallet) {
  const content = await anvil.rpc("txpool_content", []);
  const of = (section) => Object.entries(content[section] ?? {}).find(([address]) => address.toLowerCase() === wallet.toLowerCase())?.[1] ?? {};
  const tag = (section) => Object.values(of(section)).map((tx) => ({ ...tx, section }));
  return [...tag("pending"), ...tag("queued")].map((tx) => ({
    section: tx.section,
    hash: tx.hash,
    nonce: Number(tx.nonce),
    to: tx.to,
    maxFeePerGas: BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? 0),
  }));
}

/**
 * Drops two of the wallet's ready claim transactions from anvil's pool with mining paused, then
 * resumes. anvil also drops every later-nonce transaction of the sender with each one (its pool
 * cannot keep a gap), so the pool sizes before and after are logged: all of those must be
 * rebroadcast by their watchers. The higher nonce goes first so both calls remove something.
 * Only ready transactions can be dropped (a queued one, behind a nonce gap, stays), and under
 * these faults the wallet is often briefly gapped, so this waits up to `waitMs` for two.
 */
export async function mempoolDrop({ anvil, wallet, contract, waitMs = 120_000 }) {
  const ready = async () => (await walletPool(anvil, wallet)).filter((tx) => tx.section === "pending" && tx.to?.toLowerCase() === contract.toLowerCase());
  const began = Date.now();
  for (;;) {
    // Watch with blocks running, pause only once two are there: a paused chain with a gap never gets any.
    while ((await ready()).length < 2) {
      if (Date.now() - began > waitMs) return { what: "mempool drop", skipped: `no two ready claim transactions in the pool within ${waitMs / 1000} s` };
      await sleep(100);
    }
    await anvil.rpc("evm_setIntervalMining", [0]);
    try {
      const claims = await ready();
      if (claims.length < 2) continue; // a block took them meanwhile
      const first = Math.floor(Math.random() * claims.length);
      let second = Math.floor(Math.random() * (claims.length - 1));
      if (second >= first) second += 1;
      const picked = [claims[first], claims[second]].sort((a, b) => b.nonce - a.nonce);
      const dropped = [];
      for (const tx of picked) {
        const before = (await walletPool(anvil, wallet)).length;
        await anvil.rpc("anvil_dropTransaction", [tx.hash]);
        const gone = (await anvil.rpc("eth_getTransactionByHash", [tx.hash])) === null;
        dropped.push({ hash: tx.hash, nonce: tx.nonce, gone, poolBefore: before, poolAfter: (await walletPool(anvil, wallet)).length });
      }
      return { what: "mempool drop", waitedMs: Date.now() - began, dropped };
    } finally {
      await anvil.rpc("evm_setIntervalMining", [1]);
    }
  }
}

/**
 * Sets the next block's base fee to `factor` × the higher of the current base fee and the highest
 * max fee among the wallet's pooled transactions (or the engine's own quote, 2 × base fee + tip,
 * when the pool is empty). On an idle devnet the base fee decays to almost nothing while the
 * 1 gwei tip stays, so `factor` × the base fee alone would sit below every pending transaction's
 * cap and strand none of them; this way every one of them is underpriced until re-priced.
 */
export async function baseFeeSpike({ anvil, wallet, factor = 50n }) {
  const [block, tip, pool] = await Promise.all([
    anvil.rpc("eth_getBlockByNumber", ["latest", false]),
    anvil.rpc("eth_maxPriorityFeePerGas", []),
    walletPool(anvil, wallet),
  ]);
  const baseFee = BigInt(block.baseFeePerGas);
  const highestCap = pool.reduce((max, tx) => (tx.maxFeePerGas > max ? tx.maxFeePerGas : max), baseFee * 2n + BigInt(tip));
  const reference = highestCap > baseFee ? highestCap : baseFee;
  const next = reference * factor;
  await anvil.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${next.toString(16)}`]);
  return {
    what: "base-fee spike",
    factor: Number(factor),
    block: Number(block.number),
    baseFee: baseFee.toString(),
    reference: reference.toString(),
    nextBaseFee: next.toString(),
    timesBaseFee: baseFee > 0n ? Number(next / baseFee) : null,
    pooled: pool.length,
    strandedInPool: pool.filter((tx) => tx.maxFeePerGas < next).length,
  };
}

/**
 * Fires each event once when the run's progress (finished ÷ total) reaches its `at`. Events run
 * one at a time in the background; `done()` waits for the last one. The log keeps the time
 * (s since `startedAt`) and the result of each.
 */
export function faultSchedule(events, { startedAt, log = (line) => console.log(line) }) {
  const pending = [...events].sort((a, b) => a.at - b.at);
  const happened = [];
  let chain = Promise.resolve();
  return {
    happened,
    progress(fraction) {
      while (pending.length && fraction >= pending[0].at) {
        const event = pending.shift();
        chain = chain.then(async () => {
          const t = (performance.now() - startedAt) / 1000;
          try {
            const result = await event.run();
            happened.push({ t, at: event.at, ...result });
            log(`  [fault] ${t.toFixed(1)} s: ${describe(result)}`);
          } catch (error) {
            happened.push({ t, at: event.at, what: event.name, error: error.message });
            log(`  [fault] ${t.toFixed(1)} s: ${event.name} failed to inject: ${error.message}`);
          }
        });
      }
    },
    done: () => chain,
  };
}

export function describe(event) {
  if (event.error) return `${event.what}: could not inject (${event.error})`;
  if (event.skipped) return `${event.what} skipped: ${event.skipped}`;
  if (event.what === "mempool drop") {
    return `mempool drop${event.waitedMs > 1000 ? ` (after waiting ${(event.waitedMs / 1000).toFixed(0)} s for two ready claims)` : ""}: ${event.dropped.map((d) => `nonce ${d.nonce} ${d.hash.slice(0, 10)}… ${d.gone ? "dropped" : "NOT dropped"}, wallet pool ${d.poolBefore} → ${d.poolAfter}`).join("; ")}`;
  }
  if (event.what === "base-fee spike") {
    return `base-fee spike at block ${event.block}: next base fee ${event.nextBaseFee} wei = ${event.timesBaseFee?.toLocaleString("en-US")}× the base fee (${event.baseFee} wei), ${event.factor}× ${event.reference} wei (the highest cap pending or quoted); ${event.strandedInPool} of ${event.pooled} pooled wallet transactions underpriced`;
  }
  return JSON.stringify(event);
}
