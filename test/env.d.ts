import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      /** Test-only: D1 migrations read in vitest.config.ts, applied in test/setup.ts. */
      TEST_MIGRATIONS: D1Migration[];
      /** Test-only: the anvil started by test/global-setup.ts. */
      RPC_URL: string;
      /** Test-only (faults project): the misbehaving proxy in front of that project's anvil. */
      PROXY_URL: string;
      /** Test-only (workers project): seaport-js running in Node (test/fixtures/seaport-js-client.ts). */
      SEAPORT_CLIENT_URL: string;
      /** Test-only (workers project): loopback webhook receiver (test/fixtures/webhook-receiver.ts). */
      WEBHOOK_RECEIVER_URL: string;
    }
  }
}
export {};
