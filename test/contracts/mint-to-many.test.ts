// DropERC721.mintToMany: one transaction mints to many recipients (airdrops). Every id's owner and
// every balance is read back; supply is all-or-nothing. Wallets of this file are generated
// ("airdrop ...").
import { encodeFunctionData, getAddress, keccak256, parseEventLogs, toHex, zeroAddress, type Address, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts";
import { MODE_BADGE, client, createDrop, defaultParams, deployFactory, expectRevert, freshWallet, mined, type InitParams, type Wallet } from "./helpers";

const abi = dropErc721Abi;
let owner: Wallet;
let minter: Wallet;
let factory: Address;

beforeAll(async () => {
  owner = await freshWallet("airdrop owner");
  minter = await freshWallet("airdrop minter");
  ({ factory } = await deployFactory(owner));
});

const newDrop = (overrides: Partial<InitParams> = {}) =>
  createDrop(owner, factory, defaultParams(owner.account.address, minter.account.address, overrides));

/** Addresses that never held anything (no keys needed: they only receive). */
const recipients = (tag: string, count: number) =>
  Array.from({ length: count }, (_, i) => getAddress(`0x${keccak256(toHex(`airdrop ${tag} ${i}`)).slice(-40)}`));

const mintToMany = (from: Wallet, drop: Address, to: Address[], quantities: bigint[]) =>
  from.writeContract({ address: drop, abi, functionName: "mintToMany", args: [to, quantities] });

const read = (drop: Address, functionName: "ownerOf" | "balanceOf" | "totalMinted" | "claimedBy", args: readonly unknown[] = []): Promise<any> =>
  client.readContract({ address: drop, abi, functionName, args } as never);

/** The owner each id should have after minting `quantities[i]` to `to[i]` from id `first`. */
function expectedOwners(first: bigint, to: Address[], quantities: bigint[]) {
  const owners: [bigint, Address][] = [];
  let id = first;
  to.forEach((address, i) => {
    for (let q = 0n; q < quantities[i]!; q++) owners.push([id++, address]);
  });
  return owners;
}

async function expectOwners(drop: Address, owners: [bigint, Address][]) {
  const actual = await Promise.all(owners.map(([id]) => read(drop, "ownerOf", [id])));
  expect(actual).toEqual(owners.map(([, address]) => address));
}

describe("mintToMany", () => {
  it("mints each entry in array order with sequential ids, one Transfer per token", async () => {
    const drop = await newDrop();
    await mined(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [owner.account.address, 2n] }));
    const to = recipients("order", 5);
    const quantities = [1n, 3n, 1n, 2n, 1n];
    const simulated = await client.simulateContract({ address: drop, abi, functionName: "mintToMany", args: [to, quantities], account: minter.account });
    expect(simulated.result).toBe(3n);
    const receipt = await mined(mintToMany(minter, drop, to, quantities));
    const owners = expectedOwners(3n, to, quantities);
    const transfers = parseEventLogs({ abi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfers.map((l) => [l.args.from, l.args.to, l.args.tokenId])).toEqual(owners.map(([id, address]) => [zeroAddress, address, id]));

    await expectOwners(drop, owners);
    const balances = await Promise.all(to.map((address) => read(drop, "balanceOf", [address])));
    expect(balances).toEqual(quantities);
    expect(await read(drop, "totalMinted")).toBe(10n);
    // Not a claim: the per-wallet claim count stays 0.
    expect(await read(drop, "claimedBy", [to[1]])).toBe(0n);
    await expectRevert(read(drop, "ownerOf", [11n]), "ERC721NonexistentToken");
  });

  it("mints to 60 distinct new recipients and a repeated one, and every balance and owner is right", async () => {
    const drop = await newDrop();
    const to = [...recipients("many", 60)];
    const quantities = to.map((_, i) => BigInt((i % 3) + 1));
    to.push(to[0]!);
    quantities.push(2n);
    await mined(mintToMany(minter, drop, to, quantities));
    await expectOwners(drop, expectedOwners(1n, to, quantities));
    const balances = await Promise.all(to.slice(0, 60).map((address) => read(drop, "balanceOf", [address])));
    expect(balances).toEqual(quantities.slice(0, 60).map((q, i) => (i === 0 ? q + 2n : q)));
  });

  it("keeps owners right when tokens move out of and around the batch's entries", async () => {
    const drop = await newDrop();
    const [a, b] = [await freshWallet("airdrop holder a"), await freshWallet("airdrop holder b")];
    const to = [a.account.address, b.account.address, a.account.address];
    await mined(mintToMany(minter, drop, to, [3n, 1n, 2n])); // a: 1-3, b: 4, a: 5-6
    await mined(a.writeContract({ address: drop, abi, functionName: "transferFrom", args: [a.account.address, b.account.address, 2n] }));
    await mined(b.writeContract({ address: drop, abi, functionName: "burn", args: [4n] }));
    await mined(a.writeContract({ address: drop, abi, functionName: "transferFrom", args: [a.account.address, b.account.address, 5n] }));
    const A = a.account.address;
    const B = b.account.address;
    await expectOwners(drop, [[1n, A], [2n, B], [3n, A], [5n, B], [6n, A]]);
    await expectRevert(read(drop, "ownerOf", [4n]), "ERC721NonexistentToken");
    expect(await read(drop, "balanceOf", [A])).toBe(3n);
    expect(await read(drop, "balanceOf", [B])).toBe(2n);
  });

  it("is for the minter only (not even the owner)", async () => {
    const drop = await newDrop();
    const stranger = await freshWallet("airdrop stranger");
    for (const w of [owner, stranger]) {
      expect(await expectRevert(mintToMany(w, drop, [w.account.address], [1n]), "NotMinter")).toEqual([w.account.address]);
    }
    expect(await read(drop, "totalMinted")).toBe(0n);
  });

  it("enforces supply for the whole batch: one entry past it and nothing is minted", async () => {
    const drop = await newDrop({ maxSupply: 10 });
    await mined(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [owner.account.address, 4n] }));
    const to = recipients("supply", 3);
    expect(await expectRevert(mintToMany(minter, drop, to, [2n, 2n, 3n]), "MaxSupplyExceeded")).toEqual([10n]);
    expect(await read(drop, "totalMinted")).toBe(4n);
    const balances = await Promise.all(to.map((address) => read(drop, "balanceOf", [address])));
    expect(balances).toEqual([0n, 0n, 0n]);
    // A quantity that would wrap a 256-bit sum is refused the same way, not wrapped.
    await expectRevert(mintToMany(minter, drop, to.slice(0, 2), [2n, 2n ** 256n - 1n]), "MaxSupplyExceeded");
    // Exactly up to the cap is fine.
    await mined(mintToMany(minter, drop, to, [2n, 2n, 2n]));
    expect(await read(drop, "totalMinted")).toBe(10n);
    await expectRevert(mintToMany(minter, drop, [to[0]!], [1n]), "MaxSupplyExceeded");
  });

  it("rejects mismatched lengths, an empty batch, a zero quantity and the zero address", async () => {
    const drop = await newDrop();
    const to = recipients("shape", 3);
    expect(await expectRevert(mintToMany(minter, drop, to.slice(0, 2), [1n, 1n, 1n]), "LengthMismatch")).toEqual([2n, 3n]);
    expect(await expectRevert(mintToMany(minter, drop, to, [1n]), "LengthMismatch")).toEqual([3n, 1n]);
    await expectRevert(mintToMany(minter, drop, [], []), "EmptyBatch");
    await expectRevert(mintToMany(minter, drop, to, [1n, 0n, 1n]), "InvalidQuantity");
    expect(await expectRevert(mintToMany(minter, drop, [to[0]!, zeroAddress], [1n, 1n]), "ERC721InvalidReceiver")).toEqual([zeroAddress]);
    expect(await read(drop, "totalMinted")).toBe(0n);
  });

  it("rejects an address word with dirty upper bits instead of minting to its low 20 bytes", async () => {
    const drop = await newDrop();
    const [clean] = recipients("dirty", 1);
    const data = encodeFunctionData({ abi, functionName: "mintToMany", args: [[clean!], [1n]] });
    // Layout: selector | offset to | offset quantities | to.length | to[0] | ...; to[0] starts at byte 4 + 3 * 32.
    const at = 2 + (4 + 3 * 32) * 2;
    const dirty = `${data.slice(0, at)}01${data.slice(at + 2)}` as Hex;
    await expect(client.call({ account: minter.account.address, to: drop, data: dirty })).rejects.toThrow();
    await mined(minter.sendTransaction({ to: drop, data }));
    expect(await read(drop, "ownerOf", [1n])).toBe(clean);
  });

  it("mints in badge mode too (the tokens stay soulbound)", async () => {
    const drop = await newDrop({ mode: MODE_BADGE });
    const holder = await freshWallet("airdrop badge holder");
    await mined(mintToMany(minter, drop, [holder.account.address], [2n]));
    expect(await read(drop, "balanceOf", [holder.account.address])).toBe(2n);
    await expectRevert(
      holder.writeContract({ address: drop, abi, functionName: "transferFrom", args: [holder.account.address, owner.account.address, 1n] }),
      "Soulbound",
    );
  });
});
