// DropERC721 after deploy: ERC-4906 announcements (announceMetadataUpdate) and the blind-box
// reveal checked against the provenance hash. Wallets of this file are generated ("reveal ...").
import { keccak256, maxUint256, parseEventLogs, toEventSelector, toHex, zeroHash, type Address, type Hash } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts";
import { provenanceHashOf } from "../../src/chain/drop-contract";
import { client, createDrop, defaultParams, deployFactory, expectRevert, freshWallet, mined, type InitParams, type Wallet } from "./helpers";

const abi = dropErc721Abi;
let owner: Wallet;
let minter: Wallet;
let stranger: Wallet;
let factory: Address;

beforeAll(async () => {
  owner = await freshWallet("reveal owner");
  minter = await freshWallet("reveal minter");
  stranger = await freshWallet("reveal stranger");
  ({ factory } = await deployFactory(owner));
});

const newDrop = (overrides: Partial<InitParams> = {}) =>
  createDrop(owner, factory, defaultParams(owner.account.address, minter.account.address, overrides));

const announce = (from: Wallet, drop: Address, fromTokenId: bigint, toTokenId: bigint) =>
  from.writeContract({ address: drop, abi, functionName: "announceMetadataUpdate", args: [fromTokenId, toTokenId] });

const reveal = (from: Wallet, drop: Address, key: Hash) => from.writeContract({ address: drop, abi, functionName: "reveal", args: [key] });

const blindBoxKey = (drop: Address) => client.readContract({ address: drop, abi, functionName: "blindBoxKey" });

// The topics marketplaces listen for, spelled out so a renamed or re-typed event fails here.
const METADATA_UPDATE = toEventSelector("MetadataUpdate(uint256)");
const BATCH_METADATA_UPDATE = toEventSelector("BatchMetadataUpdate(uint256,uint256)");

describe("announceMetadataUpdate", () => {
  it("emits MetadataUpdate for one id and BatchMetadataUpdate for a range", async () => {
    const drop = await newDrop();
    const one = await mined(announce(owner, drop, 7n, 7n));
    expect(one.logs.map((l) => l.topics[0])).toEqual([METADATA_UPDATE]);
    expect(parseEventLogs({ abi, logs: one.logs, eventName: "MetadataUpdate" })[0]!.args).toEqual({ _tokenId: 7n });

    const range = await mined(announce(owner, drop, 1n, 250n));
    expect(range.logs.map((l) => l.topics[0])).toEqual([BATCH_METADATA_UPDATE]);
    expect(parseEventLogs({ abi, logs: range.logs, eventName: "BatchMetadataUpdate" })[0]!.args).toEqual({ _fromTokenId: 1n, _toTokenId: 250n });

    const all = await mined(announce(owner, drop, 1n, maxUint256));
    expect(parseEventLogs({ abi, logs: all.logs, eventName: "BatchMetadataUpdate" })[0]!.args).toEqual({ _fromTokenId: 1n, _toTokenId: maxUint256 });
  });

  it("refuses a reversed range", async () => {
    const drop = await newDrop();
    expect(await expectRevert(announce(owner, drop, 5n, 4n), "InvalidTokenRange")).toEqual([5n, 4n]);
  });

  it("is for the owner only (not the minter, not a stranger, not a former owner)", async () => {
    const drop = await newDrop();
    for (const w of [minter, stranger]) expect(await expectRevert(announce(w, drop, 1n, 1n), "NotOwner")).toEqual([w.account.address]);
    await mined(owner.writeContract({ address: drop, abi, functionName: "transferOwnership", args: [stranger.account.address] }));
    await expectRevert(announce(owner, drop, 1n, 1n), "NotOwner");
    await mined(announce(stranger, drop, 1n, 1n));
  });
});

describe("reveal", () => {
  // A 32-byte secret, as the service's blindboxKey; the drop commits to keccak256 of it.
  const keyFor = (label: string) => keccak256(toHex(`reveal test key ${label}`));

  it("publishes the key whose keccak256 is the provenance hash, with Revealed and BatchMetadataUpdate", async () => {
    const key = keyFor("success");
    const drop = await newDrop({ provenanceHash: provenanceHashOf(key) as Hash });
    expect(await blindBoxKey(drop)).toBe(zeroHash);

    const receipt = await mined(reveal(owner, drop, key));
    const logs = parseEventLogs({ abi, logs: receipt.logs });
    expect(logs.map((l) => [l.eventName, l.args])).toEqual([
      ["Revealed", { key }],
      ["BatchMetadataUpdate", { _fromTokenId: 1n, _toTokenId: maxUint256 }],
    ]);
    const published = await blindBoxKey(drop);
    expect(published).toBe(key);
    // What any reader can check: keccak256(the published key) is the hash committed at creation.
    expect(keccak256(published)).toBe(await client.readContract({ address: drop, abi, functionName: "provenanceHash" }));
  });

  it("refuses a wrong key and the zero key, and stays unrevealed", async () => {
    const key = keyFor("wrong");
    const drop = await newDrop({ provenanceHash: keccak256(key) });
    await expectRevert(reveal(owner, drop, keyFor("another")), "InvalidRevealKey");
    // The hash itself is not the key.
    await expectRevert(reveal(owner, drop, keccak256(key)), "InvalidRevealKey");
    await expectRevert(reveal(owner, drop, zeroHash), "InvalidRevealKey");
    expect(await blindBoxKey(drop)).toBe(zeroHash);
  });

  it("refuses the zero key even when the drop committed to its hash", async () => {
    const drop = await newDrop({ provenanceHash: keccak256(zeroHash) });
    await expectRevert(reveal(owner, drop, zeroHash), "InvalidRevealKey");
  });

  it("reveals once: a second reveal reverts AlreadyRevealed", async () => {
    const key = keyFor("twice");
    const drop = await newDrop({ provenanceHash: keccak256(key) });
    await mined(reveal(owner, drop, key));
    await expectRevert(reveal(owner, drop, key), "AlreadyRevealed");
    await expectRevert(reveal(owner, drop, keyFor("other")), "AlreadyRevealed");
    expect(await blindBoxKey(drop)).toBe(key);
  });

  it("reverts NoProvenanceHash on a drop that committed none", async () => {
    const drop = await newDrop({ provenanceHash: zeroHash });
    await expectRevert(reveal(owner, drop, keyFor("none")), "NoProvenanceHash");
  });

  it("is for the owner only", async () => {
    const key = keyFor("access");
    const drop = await newDrop({ provenanceHash: keccak256(key) });
    for (const w of [minter, stranger]) expect(await expectRevert(reveal(w, drop, key), "NotOwner")).toEqual([w.account.address]);
    expect(await blindBoxKey(drop)).toBe(zeroHash);
  });
});
