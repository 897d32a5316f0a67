// The soak's verdict: requests (what the client was told), the API (what the service says now)
// and the chain (what happened) compared claim by claim. Each recipient is used by one request
// only, so "which transactions minted to this recipient" answers loss and duplication without
// trusting any hash or token id the service reported. Counts come with examples (request id,
// transaction id, hashes, nonces) so a failure can be chased in the wrangler log.
import { holdings, totalMinted, walletNonces, walletPool, walletTransactions } from "./soak-chain.mjs";

const EXAMPLES = 10;

/**
 * results: runConcurrent results from soakClaimSender; apiTxs: id → API transaction;
 * before: { block, nonce, minted } read from the chain just before the first claim.
 */
export async function verifySoak({ rpcUrl, wallet, contract, results, apiTxs, before }) {
  const accepted = results.filter((r) => r.ok);
  const rejected = results.filter((r) => !r.ok);
  const [{ transactions: mined, baseFees }, nonces, mintedAfter, pooled] = await Promise.all([
    walletTransactions({ rpcUrl, wallet, contract, fromBlock: before.block + 1 }),
    walletNonces(rpcUrl, wallet),
    totalMinted(rpcUrl, contract),
    walletPool(rpcUrl, wallet, contract),
  ]);

  // Nonces: every nonce before.nonce..latest-1 used by exactly one mined wallet transaction.
  const byNonce = new Map();
  for (const tx of mined) byNonce.set(tx.nonce, [...(byNonce.get(tx.nonce) ?? []), tx]);
  const missingNonces = [];
  for (let n = before.nonce; n < nonces.latest; n++) if (!byNonce.has(n)) missingNonces.push(n);
  const reusedNonces = [...byNonce].filter(([, txs]) => txs.length > 1).map(([n]) => n);
  const outOfRange = mined.filter((tx) => tx.nonce < before.nonce || tx.nonce >= nonces.latest);

  const claimTxs = mined.filter((tx) => tx.kind === "claim");
  const fills = mined.filter((tx) => tx.kind === "fill");
  const others = mined.filter((tx) => tx.kind === "other");
  const byRecipient = new Map();
  for (const tx of claimTxs) byRecipient.set(tx.recipient, [...(byRecipient.get(tx.recipient) ?? []), tx]);
  const requested = new Set(results.map((r) => r.recipient.toLowerCase()));
  const strangers = claimTxs.filter((tx) => !requested.has(tx.recipient));

  const held = await holdings({ rpcUrl, contract, items: results.map((r) => ({ recipient: r.recipient, tokenId: r.ok ? r.tokenId : null })) });
  const heldOf = new Map(results.map((r, k) => [r.i, held[k]]));

  const statusCount = {};
  const problems = { lost: [], noToken: [], duplicated: [], notConfirmed: [], hashMismatch: [], predictionMiss: [], ghost: [] };
  for (const r of accepted) {
    const api = apiTxs.get(r.transactionId) ?? { status: "missing from the API" };
    statusCount[api.status] = (statusCount[api.status] ?? 0) + 1;
    const txs = byRecipient.get(r.recipient.toLowerCase()) ?? [];
    const good = txs.filter((tx) => tx.status === "success");
    const { balance, owner } = heldOf.get(r.i);
    const ownsPrediction = owner === r.recipient.toLowerCase();
    const evidence = {
      i: r.i,
      requestId: r.requestId,
      transactionId: r.transactionId,
      recipient: r.recipient,
      predictedTokenId: r.tokenId,
      owner,
      balance,
      apiStatus: api.status,
      apiHash: api.transactionHash ?? null,
      apiError: api.errorMessage ?? null,
      hashAtAcceptance: r.hash,
      mined: txs.map((tx) => ({ hash: tx.hash, nonce: tx.nonce, block: tx.block, status: tx.status })),
    };
    // The brief's definition: the predicted token is not the recipient's and the record is not confirmed.
    if (!ownsPrediction && api.status !== "confirmed") problems.lost.push(evidence);
    // Stricter, chain only: the recipient got nothing at all.
    if (good.length === 0 || balance === 0) problems.noToken.push(evidence);
    if (txs.length > 1 || balance > 1) problems.duplicated.push(evidence);
    if (api.status !== "confirmed") problems.notConfirmed.push(evidence);
    if (good.length === 1 && api.transactionHash?.toLowerCase() !== good[0].hash.toLowerCase()) problems.hashMismatch.push(evidence);
    if (!ownsPrediction && balance >= 1) problems.predictionMiss.push(evidence);
  }
  // A rejected request's transaction still in the pool will mint once the nonces below it are
  // mined: a ghost in waiting, counted with the ghosts already mined.
  const pooledFor = new Map();
  for (const tx of pooled.filter((t) => t.kind === "claim")) pooledFor.set(tx.recipient, [...(pooledFor.get(tx.recipient) ?? []), tx]);
  for (const r of rejected) {
    const txs = byRecipient.get(r.recipient.toLowerCase()) ?? [];
    const waiting = pooledFor.get(r.recipient.toLowerCase()) ?? [];
    const { balance } = heldOf.get(r.i);
    if (txs.length || balance || waiting.length) {
      problems.ghost.push({ i: r.i, requestId: r.requestId, status: r.status, error: r.error, message: r.message, recipient: r.recipient, balance, mined: txs.map((tx) => ({ hash: tx.hash, nonce: tx.nonce })), inPool: waiting.map((tx) => ({ hash: tx.hash, nonce: tx.nonce, section: tx.section })) });
    }
  }

  // Fills: the watcher's (its record ends `failed`, with the fill's hash) or the sequencer's own
  // (a nonce a definitely rejected request gave back and nobody reused; no record).
  const failedHashes = new Set(accepted.map((r) => apiTxs.get(r.transactionId)).filter((t) => t?.status === "failed" && t.transactionHash).map((t) => t.transactionHash.toLowerCase()));
  const watcherFills = fills.filter((tx) => failedHashes.has(tx.hash.toLowerCase())).length;
  const confirmed = statusCount.confirmed ?? 0;
  const reverted = statusCount.reverted ?? 0;
  const successfulMints = claimTxs.filter((tx) => tx.status === "success").reduce((sum, tx) => sum + tx.quantity, 0);

  return {
    accepted: accepted.length,
    rejected: rejected.length,
    statusCount,
    confirmed,
    reverted,
    failed: statusCount.failed ?? 0,
    stillPending: statusCount.pending ?? 0,
    nonces: { start: before.nonce, end: nonces.latest, pending: nonces.pending, delta: nonces.latest - before.nonce, stuckInPool: nonces.pooled, queuedBehindGap: nonces.queued, firstQueued: nonces.firstQueued },
    missingNonces,
    reusedNonces,
    outOfRange: outOfRange.length,
    walletMined: mined.length,
    claimTxsMined: claimTxs.length,
    claimTxsReverted: claimTxs.filter((tx) => tx.status !== "success").length,
    fills: fills.length,
    watcherFills,
    sequencerFills: fills.length - watcherFills,
    others: others.map((tx) => ({ hash: tx.hash, nonce: tx.nonce })),
    strangers: strangers.map((tx) => ({ hash: tx.hash, nonce: tx.nonce, recipient: tx.recipient })),
    minted: { before: before.minted, after: mintedAfter, delta: mintedAfter - before.minted, bySuccessfulClaimTxs: successfulMints },
    counts: Object.fromEntries(Object.entries(problems).map(([k, v]) => [k, v.length])),
    examples: Object.fromEntries(Object.entries(problems).map(([k, v]) => [k, v.slice(0, EXAMPLES)])),
    /** Every problem in full and every mined wallet transaction: for the evidence file, not the console. */
    all: problems,
    minedTransactions: mined,
    pooledTransactions: pooled,
    baseFees,
  };
}
