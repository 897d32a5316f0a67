// The sequencer's holds on a buy's order or an approval's token (decisions 24, 25): a confirmed
// approval is remembered for a minute, and holds nothing reads any more leave storage at the
// next release instead of staying for good (decision 95).
import { afterEach, describe, expect, it, vi } from "vitest";
import { SubjectHolds } from "../../src/services/engine/subject-holds";
import { withSequencerStorage } from "../helpers/engine";
import { createTestProject } from "../helpers/projects";

const STALE_AFTER_MS = 10 * 60_000;
const stored = async (storage: DurableObjectStorage) => [...(await storage.list({ prefix: "pending:" })).keys()].sort();

afterEach(() => vi.restoreAllMocks());

describe("SubjectHolds", () => {
  it("holds a confirmed approval for a minute, then deletes it and stale holds at the next release", async () => {
    const project = await createTestProject("Pending subjects");
    await withSequencerStorage(project, async (storage) => {
      let now = 1_000_000;
      vi.spyOn(Date, "now").mockImplementation(() => now);
      const subjects = new SubjectHolds(storage, STALE_AFTER_MS);
      await subjects.load();
      const approval = { kind: "approve" as const, subjectId: "0xToken" };
      const buy = { kind: "buy" as const, subjectId: "0xorder-a" };
      const crashed = { kind: "buy" as const, subjectId: "0xorder-b" };
      subjects.hold(approval, "approve-1");
      subjects.hold(crashed, "buy-lost"); // never released: a crash between sign and persist
      await subjects.release(approval, "approve-1", true);
      expect(subjects.holder(approval)).toBe("approve-1");
      expect(await stored(storage)).toEqual(["pending:approve:0xtoken", "pending:buy:0xorder-b"]);

      now += 60_000;
      expect(subjects.holder(approval)).toBeNull();
      subjects.hold(buy, "buy-1");
      await subjects.release(buy, "buy-1", true);
      // The approval's minute is over; the lost buy's hold is not stale yet.
      expect(await stored(storage)).toEqual(["pending:buy:0xorder-b"]);
      expect(subjects.holder(crashed)).toBe("buy-lost");

      now += STALE_AFTER_MS;
      subjects.hold(buy, "buy-2");
      await subjects.release(buy, "buy-2", false);
      expect(await stored(storage)).toEqual([]);
      expect(subjects.holder(crashed)).toBeNull();

      // A new object loads what storage kept: nothing.
      const reloaded = new SubjectHolds(storage, STALE_AFTER_MS);
      await reloaded.load();
      expect(reloaded.holder(approval)).toBeNull();
    });
  });
});
