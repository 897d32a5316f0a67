/**
 * An RPC URL as it may be printed: its origin, with "/…" for a path or query, which often carry
 * a provider's API key.
 */
export function rpcLabel(rpcUrl) {
  try {
    const url = new URL(rpcUrl);
    return url.pathname.length > 1 || url.search ? `${url.origin}/…` : url.origin;
  } catch {
    return "(an RPC URL that does not parse)";
  }
}
