import { cloudflareTest, readD1Migrations, type D1Migration } from "@cloudflare/vitest-pool-workers";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { buildDocsAssets } from "./scripts/docs-assets.mjs";
import { TEST_ADMIN_TOKEN, TEST_WALLET_MNEMONIC } from "./test/fixtures/secrets.ts";

// Nine projects: "workers" runs the service inside workerd (D1, KV, R2, both Durable Objects)
// against a real anvil started by test/global-setup.ts; "faults" does the same against its own
// anvil behind a misbehaving RPC proxy (test/faults/global-setup.ts); "reorg" against its own
// anvil, whose recent blocks it rewrites (test/reorg/global-setup.ts); "limits" runs with a tiny
// per-key rate limit; "contracts" runs the Solidity suite in Node against its own anvil;
// "client" runs the Node tests that need neither workerd nor a chain: the typed client's
// (webhook signatures, OpenAPI lint, generated files current), the docs' reference check and the
// dev scripts' lock; "layers" checks src/'s import rules with dependency-cruiser
// (.dependency-cruiser.cjs); "migrations" applies the migration files that move data to SQLite in
// Node; "ops" runs the operator's commands (contracts:deploy, doctor) against anvils of their own;
// "browser" drives the dashboard and /docs (network blocked) in Chromium against the real stack
// (scripts/lib/stack.mjs).

type Inject = (
  key: "chainsConfig" | "rpcUrl" | "seaportClientUrl" | "webhookReceiverUrl" | "faultChainsConfig" | "faultAnvilUrl" | "faultProxyUrl" | "reorgChainsConfig" | "reorgAnvilUrl",
) => string;

function workerProject(options: {
  name: string;
  include: string[];
  exclude?: string[];
  globalSetup: string;
  migrations: D1Migration[];
  bindings: (inject: Inject) => Record<string, string>;
  /** Rate-limit bindings, when a project needs limits other than wrangler.toml's (all of them: they replace its list). */
  rateLimits?: Record<"RATE_LIMITER" | "UNKNOWN_KEY_LIMITER", { limit: number; period: 10 | 60 }>;
  /** Its files share state beyond one test file (a fault proxy's mode, a chain they rewrite): one file at a time, after the parallel group. */
  exclusive?: boolean;
}): TestProjectInlineConfiguration {
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            PUBLIC_URL: "http://mintyard.test",
            WALLET_MNEMONIC: TEST_WALLET_MNEMONIC,
            ADMIN_TOKEN: TEST_ADMIN_TOKEN,
            // Fast engine timings so confirmation, rebroadcast and bump paths run in seconds.
            ENGINE_POLL_MS: "200",
            ENGINE_MAX_POLL_MS: "1000",
            // Webhooks to the loopback receiver, retried after 1 s, 4 s, 16 s…
            ALLOW_LOOPBACK_WEBHOOKS: "true",
            WEBHOOK_RETRY_BASE_SECONDS: "1",
            TEST_MIGRATIONS: options.migrations,
            ...options.bindings(inject as Inject),
          },
          ...(options.rateLimits
            ? { ratelimits: Object.fromEntries(Object.entries(options.rateLimits).map(([binding, simple]) => [binding, { simple }])) }
            : {}),
        },
      })),
    ],
    test: {
      name: options.name,
      include: options.include,
      exclude: options.exclude ?? [],
      globalSetup: [options.globalSetup],
      setupFiles: ["./test/setup.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      ...(options.exclusive ? EXCLUSIVE : {}),
    },
  };
}

/**
 * Most files wait on 1 s blocks, not on a core, so the parallel group runs FILE_WORKERS files at
 * once (vitest's default is one per core less one: a single worker on 2 cores). Files of an
 * exclusive project run one by one afterwards (vitest wants one worker count per group).
 */
const FILE_WORKERS = 3;
const EXCLUSIVE = { maxWorkers: 1, sequence: { groupOrder: 1 } } as const;

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // wrangler.toml's [assets] directory (the /docs bundle) must exist before the pool reads it;
  // wrangler builds it itself for dev and deploy, but the pool runs no [build].
  buildDocsAssets();
  return {
    test: {
      // The JSON report feeds .ci/run's closing "N passed, N failed" line.
      reporters: ["default", "json"],
      maxWorkers: FILE_WORKERS,
      outputFile: { json: "test-results/vitest.json" },
      projects: [
        workerProject({
          name: "workers",
          include: ["test/**/*.test.ts"],
          exclude: ["test/contracts/**", "test/docs/**", "test/faults/**", "test/layers/**", "test/limits/**", "test/migrations/**", "test/ops/**", "test/reorg/**", "test/scripts/**"],
          globalSetup: "./test/global-setup.ts",
          migrations,
          bindings: (inject) => ({
            CHAINS: inject("chainsConfig"),
            RPC_URL: inject("rpcUrl"),
            SEAPORT_CLIENT_URL: inject("seaportClientUrl"),
            WEBHOOK_RECEIVER_URL: inject("webhookReceiverUrl"),
          }),
        }),
        workerProject({
          name: "faults",
          include: ["test/faults/**/*.test.ts"],
          globalSetup: "./test/faults/global-setup.ts",
          migrations,
          bindings: (inject) => ({
            CHAINS: inject("faultChainsConfig"),
            RPC_URL: inject("faultAnvilUrl"),
            PROXY_URL: inject("faultProxyUrl"),
            ENGINE_BUMP_AFTER_BLOCKS: "2",
          }),
          exclusive: true,
        }),
        workerProject({
          name: "reorg",
          include: ["test/reorg/**/*.test.ts"],
          globalSetup: "./test/reorg/global-setup.ts",
          migrations,
          bindings: (inject) => ({ CHAINS: inject("reorgChainsConfig"), RPC_URL: inject("reorgAnvilUrl") }),
          exclusive: true,
        }),
        workerProject({
          name: "limits",
          include: ["test/limits/**/*.test.ts"],
          globalSetup: "./test/global-setup.ts",
          migrations,
          bindings: (inject) => ({ CHAINS: inject("chainsConfig"), RPC_URL: inject("rpcUrl"), RATE_LIMIT_RETRY_AFTER_SECONDS: "10" }),
          rateLimits: { RATE_LIMITER: { limit: 5, period: 10 }, UNKNOWN_KEY_LIMITER: { limit: 3, period: 10 } },
        }),
        {
          test: {
            name: "client",
            environment: "node",
            include: ["client/test/**/*.test.ts", "test/docs/**/*.test.ts", "test/scripts/**/*.test.ts"],
            // The reference check reads the whole repository: seconds on a loaded machine.
            testTimeout: 60_000,
          },
        },
        {
          // The layer rules of src/ (.dependency-cruiser.cjs), in Node.
          test: {
            name: "layers",
            environment: "node",
            include: ["test/layers/**/*.test.ts"],
            testTimeout: 60_000,
          },
        },
        {
          // Migration files applied to SQLite in Node, for the ones that move data.
          test: {
            name: "migrations",
            environment: "node",
            include: ["test/migrations/**/*.test.ts"],
          },
        },
        {
          test: {
            name: "contracts",
            environment: "node",
            include: ["test/contracts/**/*.test.ts"],
            globalSetup: ["./test/contracts/global-setup.ts"],
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
        {
          // The operator's commands (contracts:deploy, doctor) and the shipped chain config, in
          // Node against anvils the files start themselves.
          test: {
            name: "ops",
            environment: "node",
            include: ["test/ops/**/*.test.ts"],
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
        {
          // The dashboard and /docs in Debian's Chromium (playwright-core) against the real stack;
          // skipped without /usr/bin/chromium (test/browser/).
          test: {
            name: "browser",
            environment: "node",
            include: ["test/browser/**/*.e2e.ts"],
            testTimeout: 60_000,
            hookTimeout: 90_000,
          },
        },
      ],
    },
  };
});
