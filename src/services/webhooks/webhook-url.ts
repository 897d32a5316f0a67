// Which URLs deliveries may go to: https to a public host. With ALLOW_LOOPBACK_WEBHOOKS on (local
// dev, tests), also plain http to a loopback host, and any host over https. Checked when an
// endpoint is registered and again before each turn of deliveries, so a rule added later also
// covers endpoints registered before it.
import { validationError } from "../../lib/errors";
import { isPrivateHost } from "./private-hosts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** What is wrong with `url` as a delivery target, or null. */
function urlProblem(env: Pick<Env, "ALLOW_LOOPBACK_WEBHOOKS">, url: URL): string | null {
  const localAllowed = env.ALLOW_LOOPBACK_WEBHOOKS === "true";
  const loopbackHttp = localAllowed && url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !loopbackHttp) return "must use https";
  // The service sends the deliveries: a URL naming a local address would turn them into requests
  // into the service's own network, whose answers the delivery log then reports.
  if (!localAllowed && isPrivateHost(url.hostname)) return "must not point at localhost or a loopback, private, link-local, shared (CGNAT), multicast, reserved or unspecified address";
  if (url.username || url.password) return "must not contain credentials";
  return null;
}

/** The URL to store for a registration, or a 400 on `body.url`. */
export function checkWebhookUrl(env: Pick<Env, "ALLOW_LOOPBACK_WEBHOOKS">, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError("body.url", "must be an absolute URL");
  }
  const problem = urlProblem(env, url);
  if (problem) throw validationError("body.url", problem);
  url.hash = "";
  return url.toString();
}

/** Why deliveries may no longer go to a stored endpoint URL, or null when they may. */
export function refusedEndpointUrl(env: Pick<Env, "ALLOW_LOOPBACK_WEBHOOKS">, raw: string): string | null {
  try {
    return urlProblem(env, new URL(raw));
  } catch {
    return "must be an absolute URL";
  }
}
