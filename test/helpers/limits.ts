// Miniflare's rate limiter counts in fixed windows aligned to the epoch and forgets every count
// when one ends: a burst that straddles two windows is counted in neither as a whole.

/** Waits until the current window of `periodMs` has at least 60 % of it left, so a short burst stays in one. */
export async function earlyInLimiterWindow(periodMs = 10_000) {
  while (Date.now() % periodMs > periodMs * 0.4) await new Promise((resolve) => setTimeout(resolve, 250));
}
