// One indexer run is many independent jobs: every chain, then the time-based housekeeping. A chain
// whose indexing fails inside the service (a D1 error, here on the cursor table) is logged and
// reported, and the expiry sweep still runs: before, the error was rethrown past the housekeeping,
// so a failure that repeats stopped expiries, start times and purges on every chain for good.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { runIndexer, runIndexerForAdmin } from "../../src/services/indexer/run";
import { seedAsset, seedCollection, seedListing } from "../fixtures/seed";
import { d1FailingFor } from "../helpers/d1-recorder";

const cursorsFailing = () => {
  const db = d1FailingFor(/indexer_cursors/);
  return { env: { ...env, DB: db }, db: createDb(db) };
};
const statusOf = async (orderHash: string) =>
  (await env.DB.prepare("select status from orders where order_hash = ?").bind(orderHash).first<{ status: string }>())?.status;

describe("an indexer run whose chain fails inside the service", () => {
  it("reports the chain and still sweeps expired listings", async () => {
    const asset = await seedAsset(await seedCollection(), "1");
    const ended = await seedListing(asset, 10n ** 15n, { endTime: new Date(Date.now() - 1_000) });

    const run = await runIndexer(cursorsFailing());

    expect(run.failed).toEqual([1868]);
    expect(run.chains).toEqual([]);
    expect(run.housekeepingFailed).toEqual([]);
    expect(await statusOf(ended.orderHash)).toBe("expired");
  });

  it("answers the admin call with an error naming the chain, after the sweep", async () => {
    const asset = await seedAsset(await seedCollection(), "1");
    const ended = await seedListing(asset, 10n ** 15n, { endTime: new Date(Date.now() - 1_000) });

    const answer = runIndexerForAdmin(cursorsFailing());

    await expect(answer).rejects.toMatchObject({ code: "internal_error", message: expect.stringContaining("chain 1868") });
    expect(await statusOf(ended.orderHash)).toBe("expired");
  });
});
