// src/chain/drop-contract.ts against a real drop: every encoder's calldata is sent as the
// project wallet would send it, and the readers (and the proceeds reads of transactions.ts and
// erc20.ts) report the chain's state. Wallets of this file are generated ("drop-contract ...").
import { getAddress, keccak256, maxUint256, parseEther, parseEventLogs, toHex, zeroAddress, zeroHash, type Address, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts";
import {
  LAST_TOKEN_ID,
  encodeAnnounceMetadataUpdate,
  encodeMintToMany,
  encodeReveal,
  encodeSetBaseURI,
  encodeSetClaimConditions,
  encodeSetRoyalty,
  encodeTransferOwnership,
  encodeWithdraw,
  mintToManyGasLimit,
  provenanceHashOf,
  readClaimConditions,
  readDropOwner,
  readProvenanceHash,
  readRevealedKey,
  readTotalMinted,
  type MintEntry,
} from "../../src/chain/drop-contract";
import { erc20Balance } from "../../src/chain/erc20";
import { nativeBalance } from "../../src/chain/transactions";
import { testErc20Abi, testErc20Bytecode } from "./artifacts/test-erc20";
import { client, createDrop, defaultParams, deployFactory, deployed, freshWallet, mined, rpcUrl, type InitParams, type Wallet } from "./helpers";

const abi = dropErc721Abi;
let owner: Wallet;
let minter: Wallet;
let buyer: Wallet;
let factory: Address;

beforeAll(async () => {
  owner = await freshWallet("drop-contract owner");
  minter = await freshWallet("drop-contract minter");
  buyer = await freshWallet("drop-contract buyer");
  ({ factory } = await deployFactory(owner));
});

const newDrop = (overrides: Partial<InitParams> = {}) =>
  createDrop(owner, factory, defaultParams(owner.account.address, minter.account.address, overrides));

const send = (from: Wallet, drop: Address, data: Hex) => mined(from.sendTransaction({ to: drop, data }));

const lower = (address: string) => address.toLowerCase();

describe("sale and settings", () => {
  it("setClaimConditions round-trips through readClaimConditions", async () => {
    const drop = await newDrop({ unitPrice: 5n, maxSupply: 100, limitPerWallet: 2, startTime: 10 });
    expect(await readClaimConditions(rpcUrl, drop)).toEqual({ unitPrice: 5n, currency: zeroAddress, startTime: 10, limitPerWallet: 2, maxSupply: 100, merkleRoot: zeroHash });
    const token = getAddress(`0x${"ab".repeat(20)}`);
    const next = { unitPrice: parseEther("0.2"), currency: token, startTime: 1_900_000_000, limitPerWallet: 7, maxSupply: 500, merkleRoot: keccak256(toHex("root")) };
    await send(owner, drop, encodeSetClaimConditions(next));
    expect(await readClaimConditions(rpcUrl, drop)).toEqual({ ...next, currency: lower(token) });
  });

  it("setRoyalty, setBaseURI and transferOwnership take effect", async () => {
    const drop = await newDrop();
    const creator = buyer.account.address;
    await send(owner, drop, encodeSetRoyalty(creator, 750));
    expect(await client.readContract({ address: drop, abi, functionName: "royaltyInfo", args: [1n, 10_000n] })).toEqual([creator, 750n]);
    await send(owner, drop, encodeSetBaseURI("https://meta.example/v2/"));
    expect(await client.readContract({ address: drop, abi, functionName: "baseURI" })).toBe("https://meta.example/v2/");

    expect(await readDropOwner(rpcUrl, drop)).toBe(lower(owner.account.address));
    await send(owner, drop, encodeTransferOwnership(buyer.account.address));
    expect(await readDropOwner(rpcUrl, drop)).toBe(lower(buyer.account.address));
  });

  it("announces one token and every token (ERC-4906)", async () => {
    const drop = await newDrop();
    const one = await send(owner, drop, encodeAnnounceMetadataUpdate(3n, 3n));
    expect(parseEventLogs({ abi, logs: one.logs }).map((l) => [l.eventName, l.args])).toEqual([["MetadataUpdate", { _tokenId: 3n }]]);
    const all = await send(owner, drop, encodeAnnounceMetadataUpdate(1n, LAST_TOKEN_ID));
    expect(parseEventLogs({ abi, logs: all.logs }).map((l) => [l.eventName, l.args])).toEqual([["BatchMetadataUpdate", { _fromTokenId: 1n, _toTokenId: maxUint256 }]]);
  });
});

describe("blind box", () => {
  it("reveals the key committed with provenanceHashOf; the readers see before and after", async () => {
    const key = keccak256(toHex("drop-contract blind box key"));
    const drop = await newDrop({ provenanceHash: provenanceHashOf(key) as Hex });
    expect(await readProvenanceHash(rpcUrl, drop)).toBe(provenanceHashOf(key));
    expect(await readRevealedKey(rpcUrl, drop)).toBeNull();
    await send(owner, drop, encodeReveal(key));
    expect(await readRevealedKey(rpcUrl, drop)).toBe(key);
  });
});

describe("mintToMany", () => {
  it("mints the entries in order and stays within mintToManyGasLimit", async () => {
    const drop = await newDrop();
    const batches: MintEntry[][] = [
      [{ to: buyer.account.address, quantity: 1 }],
      Array.from({ length: 40 }, (_, i) => ({ to: getAddress(`0x${keccak256(toHex(`drop-contract recipient ${i}`)).slice(-40)}`), quantity: (i % 4) + 1 })),
    ];
    let minted = 0;
    for (const entries of batches) {
      const receipt = await send(minter, drop, encodeMintToMany(entries));
      const quantities = entries.map((e) => e.quantity);
      expect(receipt.gasUsed).toBeLessThanOrEqual(mintToManyGasLimit(quantities));
      // Headroom, not a blank cheque: within 20 % of what it used.
      expect(Number(mintToManyGasLimit(quantities))).toBeLessThan(Number(receipt.gasUsed) * 1.2);
      minted += quantities.reduce((a, b) => a + b, 0);
      expect(await readTotalMinted(rpcUrl, drop)).toBe(minted);
    }
    const last = batches[1]!.at(-1)!;
    expect(await client.readContract({ address: drop, abi, functionName: "ownerOf", args: [BigInt(minted)] })).toBe(last.to);
  });
});

describe("proceeds", () => {
  it("withdraws native and ERC-20 proceeds; the balance reads follow", async () => {
    const token = await deployed(owner.deployContract({ abi: testErc20Abi, bytecode: testErc20Bytecode }));
    const nativeDrop = await newDrop({ unitPrice: parseEther("0.01") });
    const erc20Drop = await newDrop({ unitPrice: 3_000_000n, currency: token });
    const b = buyer.account.address;
    await mined(buyer.writeContract({ address: nativeDrop, abi, functionName: "claim", args: [b, 2n, [], 0n, 0n], value: parseEther("0.02") }));
    await mined(buyer.writeContract({ address: token, abi: testErc20Abi, functionName: "mint", args: [b, 3_000_000n] }));
    await mined(buyer.writeContract({ address: token, abi: testErc20Abi, functionName: "approve", args: [erc20Drop, 3_000_000n] }));
    await mined(buyer.writeContract({ address: erc20Drop, abi, functionName: "claim", args: [b, 1n, [], 0n, 0n] }));
    expect(await nativeBalance(rpcUrl, nativeDrop)).toBe(parseEther("0.02"));
    expect(await erc20Balance(rpcUrl, token, erc20Drop)).toBe(3_000_000n);

    const recipient = getAddress(`0x${keccak256(toHex("drop-contract proceeds recipient")).slice(-40)}`);
    await send(owner, nativeDrop, encodeWithdraw(zeroAddress, recipient));
    await send(owner, erc20Drop, encodeWithdraw(token, recipient));
    expect(await nativeBalance(rpcUrl, nativeDrop)).toBe(0n);
    expect(await nativeBalance(rpcUrl, recipient)).toBe(parseEther("0.02"));
    expect(await erc20Balance(rpcUrl, token, erc20Drop)).toBe(0n);
    expect(await erc20Balance(rpcUrl, token, recipient)).toBe(3_000_000n);
  });
});
