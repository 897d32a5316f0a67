// Every kind the transactions table can hold is registered with the engine (src/services/
// transaction-kinds.ts), with the holds and revert decoding the sequencer relies on.
import { describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { erc20Abi } from "../../src/chain/erc20";
import { transactions } from "../../src/db/schema";
import { heldAfterConfirmedMs, holdsSubject, registeredKinds, revertAbiOf, transactionKind } from "../../src/services/engine/kinds";
import { claimKind } from "../../src/services/drops/transaction-kinds";

describe("the registered transaction kinds", () => {
  it("are exactly the kinds a transactions row can have", () => {
    expect(registeredKinds().sort()).toEqual([...transactions.kind.enumValues].sort());
  });

  it("hold a buy's order until it settles and an approval's token a minute past its confirmation; nothing else", () => {
    const subjectId = "0xsubject";
    expect(registeredKinds().filter((kind) => holdsSubject({ kind, subjectId })).sort()).toEqual(["approve", "buy"]);
    expect(holdsSubject({ kind: "buy", subjectId: null })).toBe(false);
    expect([heldAfterConfirmedMs("buy"), heldAfterConfirmedMs("approve")]).toEqual([0, 60_000]);
  });

  it("decode a transfer's revert as an ERC20's only when it calls one", () => {
    expect(revertAbiOf("transfer", { to: "0x1", data: "0x", value: "1" })).toBeUndefined();
    expect(revertAbiOf("transfer", { to: "0x1", data: "0xa9059cbb", value: "0" })).toBe(erc20Abi);
    expect(revertAbiOf("claim", { to: "0x1", data: "0x", value: "0" })).toBe(dropErc721Abi);
  });

  it("parse a claim's stored payload, and refuse one that is not a claim's", () => {
    const payload = {
      dropId: "d1",
      chainId: 1868,
      contract: "0xdrop",
      metadataStorageType: "s3" as const,
      baseUri: "https://example.com/",
      overrides: [{ name: "One" }],
      forEveryToken: null,
    };
    const schema = transactionKind("claim").payload!;
    expect(schema.parse(JSON.parse(claimKind.payloadJson(payload)))).toEqual(payload);
    expect(() => schema.parse({ ...payload, overrides: [{ description: "no name" }] })).toThrow();
    expect(() => schema.parse({ ...payload, metadataStorageType: "ftp" })).toThrow();
  });
});
