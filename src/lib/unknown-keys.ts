// Every unknown key costs a KV read and a D1 query before it can be refused, so a client that
// presents many is refused the D1 query for a while (decision 105): its keys are still read from
// KV, which holds an entry for every live key, so a key that resolves is never refused here
// (decision 119). Counted by a rate-limit binding shared by the location's isolates; each
// isolate remembers a refused client.
import { IsolateCache } from "./isolate-cache";
import { logWarn } from "./log";
import { AppError } from "./errors";

const REFUSED_FOR_SECONDS = 60;
const refusedClients = new IsolateCache<true>(REFUSED_FOR_SECONDS * 1000);
/** What Cloudflare puts in CF-Connecting-IP for a request a Worker on another zone sends. */
const WORKERS_EGRESS_ADDRESS = "2a06:98c0:3600::103";

export const tooManyUnknownKeys = () =>
  new AppError("rate_limited", `too many unknown keys from this address; retry in ${REFUSED_FOR_SECONDS} s`, undefined, {
    "Retry-After": String(REFUSED_FOR_SECONDS),
  });

/** The first four groups of an IPv6 address (its /64, what one subscriber usually holds), or null if it is none. */
function ipv6Prefix64(address: string): string | null {
  // IPv4 (and IPv4-mapped IPv6, whose /64 would hold every IPv4 client) is counted per address.
  if (!address.includes(":") || address.includes(".")) return null;
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const left = groups(head);
  const right = groups(tail);
  const full = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${full
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * Whom a request's unknown keys are counted against: its address as Cloudflare's edge saw it
 * (`CF-Connecting-IP`; `wrangler dev` sets the local peer's when it is absent), an IPv6 address
 * by its /64, and a request from a Worker on another zone, which all arrive from one Cloudflare
 * address, by that Worker's zone (`CF-Worker`). Null for requests that came through no HTTP
 * front at all (the test runner's in-process calls): those are not counted.
 */
export function unknownKeyClient(header: (name: string) => string | undefined): string | null {
  const address = header("cf-connecting-ip")?.trim().toLowerCase();
  if (!address) return null;
  const worker = header("cf-worker")?.trim();
  if (address === WORKERS_EGRESS_ADDRESS && worker) return `worker:${worker}`;
  return ipv6Prefix64(address) ?? address;
}

/** Whether `client` is refused: a key of its that KV does not know is not looked up in D1. */
export const clientRefused = (client: string | null): boolean => client !== null && refusedClients.get(client) === true;

/**
 * Counts one failed request from `client` that presented a well-formed key the service does not
 * know; past the limit the client is refused, and so is this request. A limiter that cannot be
 * reached counts nothing: the throttle must not fail requests.
 */
export async function countUnknownKey(env: Pick<Env, "UNKNOWN_KEY_LIMITER">, client: string | null): Promise<void> {
  if (client === null) return;
  let withinLimit = true;
  try {
    ({ success: withinLimit } = await env.UNKNOWN_KEY_LIMITER.limit({ key: client }));
  } catch (error) {
    logWarn({}, { where: "unknownKeys.count" }, error);
  }
  if (withinLimit) return;
  refusedClients.set(client, true);
  throw tooManyUnknownKeys();
}
