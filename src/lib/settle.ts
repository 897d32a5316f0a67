/**
 * Waits for every promise, then throws the first rejection, if any: unlike Promise.all, a failure
 * does not leave the others running unobserved after the caller has moved on.
 */
export async function settleAllOrThrow(promises: Iterable<Promise<unknown>>): Promise<void> {
  const failed = (await Promise.allSettled(promises)).find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}
