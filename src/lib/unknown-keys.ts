// Every unknown key costs a KV read and a D1 query before it can be refused, so a client address
// that presents many is refused for a while without either (decision 105). Counted by a
// rate-limit binding shared by the location's isolates; each isolate remembers a refused address.
import { IsolateCache } from "./isolate-cache";
import { logWarn } from "./log";
import { AppError } from "./errors";

const REFUSED_FOR_SECONDS = 60;
const refusedAddresses = new IsolateCache<true>(REFUSED_FOR_SECONDS * 1000);

const tooManyUnknownKeys = () =>
  new AppError("rate_limited", `too many unknown keys from this address; retry in ${REFUSED_FOR_SECONDS} s`, undefined, {
    "Retry-After": String(REFUSED_FOR_SECONDS),
  });

/**
 * The address Cloudflare's edge saw (`CF-Connecting-IP`, which a client cannot set; `wrangler
 * dev` sets the local peer's), or null for requests that came through no HTTP front at all
 * (the test runner's in-process calls), which are not counted.
 */
export const clientAddress = (header: (name: string) => string | undefined): string | null => header("cf-connecting-ip")?.trim() || null;

/** Whether requests from `address` are refused unless every key they present is already in isolate memory. */
export const addressRefused = (address: string | null): boolean => address !== null && refusedAddresses.get(address) === true;

export function refuseAddress(): never {
  throw tooManyUnknownKeys();
}

/**
 * Counts one request from `address` that presented a key the service does not know; past the
 * limit, the address is refused and so is this request. A limiter that cannot be reached counts
 * nothing: the throttle must not fail requests.
 */
export async function countUnknownKey(env: Pick<Env, "UNKNOWN_KEY_LIMITER">, address: string | null): Promise<void> {
  if (address === null) return;
  let withinLimit = true;
  try {
    ({ success: withinLimit } = await env.UNKNOWN_KEY_LIMITER.limit({ key: address }));
  } catch (error) {
    logWarn({}, { where: "unknownKeys.count" }, error);
  }
  if (withinLimit) return;
  refusedAddresses.set(address, true);
  throw tooManyUnknownKeys();
}
