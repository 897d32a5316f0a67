// The Worker shares the test's global fetch (vitest-pool-workers runs both in one isolate), so a
// spy on it sees, and may answer, every request the service makes: RPC calls and webhook
// deliveries. Restored by vi.restoreAllMocks().
import { vi } from "vitest";

export interface SpiedRequest {
  url: string;
  /** The body when it is a string (JSON-RPC calls, webhook payloads). */
  body: string | undefined;
  init: RequestInit | undefined;
}

/** Routes every fetch through `handle`; `pass` sends the request on unchanged. */
export function interceptFetch(handle: (request: SpiedRequest, pass: () => Promise<Response>) => Promise<Response>): void {
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    return handle({ url, body: typeof init?.body === "string" ? init.body : undefined, init }, () => realFetch(input, init));
  });
}

/** The requests `matches` selects, recorded as they go out unchanged. */
export function recordFetches(matches: (request: SpiedRequest) => boolean): SpiedRequest[] {
  const seen: SpiedRequest[] = [];
  interceptFetch((request, pass) => {
    if (matches(request)) seen.push(request);
    return pass();
  });
  return seen;
}
