// One POST of a delivery to its endpoint, signed; the answer classified for the retry logic.
import type { webhookDeliveries } from "../../db/schema";
import { signatureHeader } from "./signing";

const TIMEOUT_MS = 10_000;

export interface AttemptResult {
  ok: boolean;
  /** The HTTP status, or null when no answer came (network error, timeout). */
  status: number | null;
  error: string | null;
  /** How long a 429 or 503 asked the sender to wait (its Retry-After), in ms; null when it did not say. */
  retryAfterMs: number | null;
}

/** `secrets`: the endpoint's signing secrets in use, each giving one `v1` of the signature header. */
export async function attemptDelivery(url: string, secrets: readonly string[], delivery: typeof webhookDeliveries.$inferSelect): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Mintyard-Webhooks/1",
        "mintyard-event": delivery.eventType,
        "mintyard-delivery": delivery.id,
        "mintyard-signature": await signatureHeader(secrets, timestamp, delivery.payload),
      },
      body: delivery.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    return { ok: false, status: null, error: error instanceof Error ? error.name : "request failed", retryAfterMs: null };
  }
  // The status is the answer; the body is never read, and failing to discard it (a connection
  // reset mid-body) must not turn a 2xx into "no answer" and send the event again.
  await response.body?.cancel().catch(() => undefined);
  return {
    ok: response.status >= 200 && response.status < 300,
    status: response.status,
    error: response.ok ? null : `HTTP ${response.status}`,
    retryAfterMs: response.status === 429 || response.status === 503 ? parseRetryAfter(response.headers.get("retry-after"), Date.now()) : null,
  };
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form starts with the day's name; Date.parse alone would also take "-5" or "1.5".
  if (!/^[A-Za-z]{3}/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * The endpoint itself is down or overloaded (no answer, 5xx, 429), as opposed to refusing this
 * one event (other 3xx/4xx): its other deliveries would fail the same way now.
 */
export const endpointUnavailable = (result: AttemptResult) => result.status === null || result.status >= 500 || result.status === 429;
