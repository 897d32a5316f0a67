// The sequencer's holds and reservation books load once per instance (StoredMap). A storage read
// that failed once must not fail every later request of the instance.
import { describe, expect, it } from "vitest";
import { StoredMap } from "../../src/services/engine/stored-map";

describe("a StoredMap whose first storage read fails", () => {
  it("reads storage again on the next load, and then serves what is stored", async () => {
    let lists = 0;
    const storage = {
      list: async () => {
        lists += 1;
        if (lists === 1) throw new Error("storage read failed");
        return new Map([["hold:order-1", { transactionId: "t1" }]]);
      },
      put: async () => undefined,
    } as unknown as DurableObjectStorage;
    const holds = new StoredMap<{ transactionId: string }>(storage, "hold:");

    await expect(holds.load()).rejects.toThrow("storage read failed");
    await holds.load();
    expect([lists, holds.get("order-1")]).toEqual([2, { transactionId: "t1" }]);
  });
});
