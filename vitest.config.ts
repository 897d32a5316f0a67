import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { TEST_ADMIN_TOKEN, TEST_WALLET_MNEMONIC } from "./test/fixtures/secrets.ts";

// Two projects: "workers" runs the service inside workerd (D1, KV, R2, both Durable Objects)
// against a real anvil started by test/global-setup.ts; "contracts" runs the Solidity suite in
// Node against its own anvil.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    test: {
      // The JSON report feeds .ci/run's closing "N passed, N failed" line.
      reporters: ["default", "json"],
      outputFile: { json: "test-results/vitest.json" },
      projects: [
        {
          plugins: [
            cloudflareTest(({ inject }) => ({
              main: "./src/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  CHAINS: inject("chainsConfig"),
                  PUBLIC_URL: "http://mintyard.test",
                  WALLET_MNEMONIC: TEST_WALLET_MNEMONIC,
                  ADMIN_TOKEN: TEST_ADMIN_TOKEN,
                  RPC_URL: inject("rpcUrl"),
                  // Fast engine timings so confirmation, rebroadcast and bump paths run in seconds.
                  ENGINE_POLL_MS: "200",
                  ENGINE_MAX_POLL_MS: "1000",
                  TEST_MIGRATIONS: migrations,
                },
              },
            })),
          ],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/contracts/**"],
            globalSetup: ["./test/global-setup.ts"],
            setupFiles: ["./test/setup.ts"],
            testTimeout: 60_000,
            hookTimeout: 60_000,
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
      ],
    },
  };
});
