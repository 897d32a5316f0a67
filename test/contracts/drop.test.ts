// DropERC721: initialisation, mintTo, transfers, badge mode, burn, royalties, metadata and
// owner settings. Anvil accounts 0-2 belong to this file.
import { keccak256, parseEventLogs, toHex, zeroAddress, type Address } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts";
import { testErc20Abi, testErc20Bytecode } from "./artifacts/test-erc20";
import {
  MODE_BADGE,
  anvilWallet,
  client,
  createDrop,
  defaultParams,
  deployFactory,
  deployed,
  expectRevert,
  factoryWithDropErrorsAbi,
  freshWallet,
  mined,
  type InitParams,
  type Wallet,
} from "./helpers";

const owner = anvilWallet(0);
const minter = anvilWallet(1);
const holder = anvilWallet(2);
let factory: Address;
let implementation: Address;
let stranger: Wallet;

const abi = dropErc721Abi;
// Loosely typed view call: the tests compare results with expect() anyway.
const read = (address: Address, functionName: string, args: readonly unknown[] = []): Promise<any> =>
  client.readContract({ address, abi, functionName, args } as never);

async function newDrop(overrides: Partial<InitParams> = {}) {
  return createDrop(owner, factory, defaultParams(owner.account.address, minter.account.address, overrides));
}

async function mint(drop: Address, to: Address, quantity: bigint) {
  return mined(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [to, quantity] }));
}

beforeAll(async () => {
  ({ factory, implementation } = await deployFactory(owner));
  stranger = await freshWallet("drop stranger");
});

describe("initialisation", () => {
  it("sets identity from the clone's code and settings from storage", async () => {
    const provenanceHash = keccak256(toHex("the blind box key"));
    const drop = await newDrop({
      name: "Genesis",
      symbol: "GEN",
      maxSupply: 500,
      limitPerWallet: 3,
      startTime: 1234,
      unitPrice: 10n ** 16n,
      royaltyRecipient: holder.account.address,
      royaltyBps: 250,
      provenanceHash,
    });
    expect(await read(drop, "name")).toBe("Genesis");
    expect(await read(drop, "symbol")).toBe("GEN");
    expect(await read(drop, "mode")).toBe(0);
    expect(await read(drop, "provenanceHash")).toBe(provenanceHash);
    expect(await read(drop, "owner")).toBe(owner.account.address);
    expect(await read(drop, "minter")).toBe(minter.account.address);
    expect(await read(drop, "baseURI")).toBe("https://meta.example/drop/");
    expect(await read(drop, "totalSupply")).toBe(0n);
    expect(await read(drop, "claimConditions")).toEqual({
      unitPrice: 10n ** 16n,
      currency: zeroAddress,
      startTime: 1234,
      limitPerWallet: 3,
      maxSupply: 500,
      merkleRoot: "0x" + "0".repeat(64),
    });
  });

  it("cannot initialise a clone twice", async () => {
    const drop = await newDrop();
    const params = defaultParams(stranger.account.address, stranger.account.address);
    await expectRevert(stranger.writeContract({ address: drop, abi, functionName: "initialize", args: [params] }), "AlreadyInitialized");
  });

  it("cannot initialise the implementation", async () => {
    const params = defaultParams(stranger.account.address, stranger.account.address);
    await expectRevert(
      stranger.writeContract({ address: implementation, abi, functionName: "initialize", args: [params] }),
      "AlreadyInitialized",
    );
  });

  it("rejects a royalty above 10,000 bps and a zero owner at creation", async () => {
    const salt = keccak256(toHex("drop bad royalty"));
    const bad = defaultParams(owner.account.address, minter.account.address, { royaltyBps: 10_001 });
    const call = (p: InitParams) =>
      owner.writeContract({ address: factory, abi: factoryWithDropErrorsAbi, functionName: "createDrop", args: [salt, p] });
    expect(await expectRevert(call(bad), "RoyaltyTooHigh")).toEqual([10_001n]);
    await expectRevert(call({ ...bad, royaltyBps: 0, owner: zeroAddress }), "InvalidOwner");
  });
});

describe("mintTo", () => {
  it("mints sequential ids from 1 in batches, one Transfer per token", async () => {
    const drop = await newDrop();
    const first = await client.simulateContract({
      address: drop,
      abi,
      functionName: "mintTo",
      args: [holder.account.address, 3n],
      account: minter.account,
    });
    expect(first.result).toBe(1n);
    const receipt = await mint(drop, holder.account.address, 3n);
    const transfers = parseEventLogs({ abi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfers.map((l) => [l.args.from, l.args.to, l.args.tokenId])).toEqual([
      [zeroAddress, holder.account.address, 1n],
      [zeroAddress, holder.account.address, 2n],
      [zeroAddress, holder.account.address, 3n],
    ]);
    await mint(drop, stranger.account.address, 2n);
    for (const id of [1n, 2n, 3n]) expect(await read(drop, "ownerOf", [id])).toBe(holder.account.address);
    for (const id of [4n, 5n]) expect(await read(drop, "ownerOf", [id])).toBe(stranger.account.address);
    expect(await read(drop, "balanceOf", [holder.account.address])).toBe(3n);
    expect(await read(drop, "totalSupply")).toBe(5n);
    expect(await read(drop, "totalMinted")).toBe(5n);
    await expectRevert(read(drop, "ownerOf", [0n]), "ERC721NonexistentToken");
    await expectRevert(read(drop, "ownerOf", [6n]), "ERC721NonexistentToken");
  });

  it("is for the minter only (not even the owner)", async () => {
    const drop = await newDrop();
    for (const w of [owner, stranger]) {
      const args = await expectRevert(
        w.writeContract({ address: drop, abi, functionName: "mintTo", args: [w.account.address, 1n] }),
        "NotMinter",
      );
      expect(args).toEqual([w.account.address]);
    }
  });

  it("rejects quantity 0 and the zero address", async () => {
    const drop = await newDrop();
    await expectRevert(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [holder.account.address, 0n] }), "InvalidQuantity");
    await expectRevert(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [zeroAddress, 1n] }), "ERC721InvalidReceiver");
  });

  it("follows a minter change", async () => {
    const drop = await newDrop();
    const receipt = await mined(owner.writeContract({ address: drop, abi, functionName: "setMinter", args: [stranger.account.address] }));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "MinterUpdated" });
    expect(event!.args).toEqual({ previousMinter: minter.account.address, newMinter: stranger.account.address });
    await expectRevert(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [holder.account.address, 1n] }), "NotMinter");
    await mined(stranger.writeContract({ address: drop, abi, functionName: "mintTo", args: [holder.account.address, 1n] }));
  });
});

describe("transfers (standard mode)", () => {
  it("moves one token out of the middle of a batch and keeps the others' owners", async () => {
    const drop = await newDrop();
    await mint(drop, holder.account.address, 5n);
    await mined(holder.writeContract({ address: drop, abi, functionName: "transferFrom", args: [holder.account.address, stranger.account.address, 3n] }));
    const owners = await Promise.all([1n, 2n, 3n, 4n, 5n].map((id) => read(drop, "ownerOf", [id])));
    const h = holder.account.address;
    expect(owners).toEqual([h, h, stranger.account.address, h, h]);
    expect(await read(drop, "balanceOf", [h])).toBe(4n);
    expect(await read(drop, "balanceOf", [stranger.account.address])).toBe(1n);
  });

  it("lets the approved address and operators transfer, nobody else", async () => {
    const drop = await newDrop();
    const h = holder.account.address;
    await mint(drop, h, 2n);
    await expectRevert(
      stranger.writeContract({ address: drop, abi, functionName: "transferFrom", args: [h, stranger.account.address, 1n] }),
      "ERC721InsufficientApproval",
    );
    await expectRevert(
      stranger.writeContract({ address: drop, abi, functionName: "approve", args: [stranger.account.address, 1n] }),
      "ERC721InvalidApprover",
    );
    await mined(holder.writeContract({ address: drop, abi, functionName: "approve", args: [stranger.account.address, 1n] }));
    expect(await read(drop, "getApproved", [1n])).toBe(stranger.account.address);
    await mined(stranger.writeContract({ address: drop, abi, functionName: "transferFrom", args: [h, stranger.account.address, 1n] }));
    expect(await read(drop, "getApproved", [1n])).toBe(zeroAddress);

    await mined(holder.writeContract({ address: drop, abi, functionName: "setApprovalForAll", args: [owner.account.address, true] }));
    await mined(owner.writeContract({ address: drop, abi, functionName: "transferFrom", args: [h, owner.account.address, 2n] }));
    expect(await read(drop, "ownerOf", [2n])).toBe(owner.account.address);
    await expectRevert(
      holder.writeContract({ address: drop, abi, functionName: "transferFrom", args: [stranger.account.address, h, 2n] }),
      "ERC721IncorrectOwner",
    );
  });

  it("refuses safeTransferFrom to a contract that is not a receiver", async () => {
    const drop = await newDrop();
    await mint(drop, holder.account.address, 1n);
    const token = await deployed(owner.deployContract({ abi: testErc20Abi, bytecode: testErc20Bytecode }));
    await expectRevert(
      holder.writeContract({
        address: drop,
        abi,
        functionName: "safeTransferFrom",
        args: [holder.account.address, token, 1n],
      }),
      "ERC721InvalidReceiver",
    );
  });
});

describe("badge mode", () => {
  it("blocks transfers and approvals but mints and burns", async () => {
    const drop = await newDrop({ mode: MODE_BADGE });
    const h = holder.account.address;
    expect(await read(drop, "mode")).toBe(MODE_BADGE);
    await mint(drop, h, 2n);
    await expectRevert(holder.writeContract({ address: drop, abi, functionName: "transferFrom", args: [h, stranger.account.address, 1n] }), "Soulbound");
    await expectRevert(
      holder.writeContract({ address: drop, abi, functionName: "safeTransferFrom", args: [h, stranger.account.address, 1n] }),
      "Soulbound",
    );
    await expectRevert(holder.writeContract({ address: drop, abi, functionName: "approve", args: [stranger.account.address, 1n] }), "Soulbound");
    await expectRevert(
      holder.writeContract({ address: drop, abi, functionName: "setApprovalForAll", args: [stranger.account.address, true] }),
      "Soulbound",
    );
    await mined(holder.writeContract({ address: drop, abi, functionName: "burn", args: [1n] }));
    expect(await read(drop, "balanceOf", [h])).toBe(1n);
    expect(await read(drop, "ownerOf", [2n])).toBe(h);
  });
});

describe("burn", () => {
  it("lets the holder burn, not a stranger, and keeps the rest of the batch", async () => {
    const drop = await newDrop();
    const h = holder.account.address;
    await mint(drop, h, 3n);
    await expectRevert(stranger.writeContract({ address: drop, abi, functionName: "burn", args: [2n] }), "ERC721InsufficientApproval");
    const receipt = await mined(holder.writeContract({ address: drop, abi, functionName: "burn", args: [2n] }));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "Transfer" });
    expect(event!.args).toEqual({ from: h, to: zeroAddress, tokenId: 2n });
    await expectRevert(read(drop, "ownerOf", [2n]), "ERC721NonexistentToken");
    await expectRevert(read(drop, "tokenURI", [2n]), "ERC721NonexistentToken");
    expect(await read(drop, "ownerOf", [3n])).toBe(h);
    expect(await read(drop, "ownerOf", [1n])).toBe(h);
    expect(await read(drop, "totalSupply")).toBe(2n);
    expect(await read(drop, "totalMinted")).toBe(3n);
    await expectRevert(holder.writeContract({ address: drop, abi, functionName: "burn", args: [2n] }), "ERC721NonexistentToken");
  });
});

describe("royalties", () => {
  it("answers royaltyInfo from the creation values, then from setRoyalty", async () => {
    const creator = holder.account.address;
    const drop = await newDrop({ royaltyRecipient: creator, royaltyBps: 500 });
    expect(await read(drop, "royaltyInfo", [1n, 10_000n])).toEqual([creator, 500n]);
    expect(await read(drop, "royaltyInfo", [1n, 3n * 10n ** 18n])).toEqual([creator, 15n * 10n ** 16n]);

    await expectRevert(owner.writeContract({ address: drop, abi, functionName: "setRoyalty", args: [creator, 10_001] }), "RoyaltyTooHigh");
    await expectRevert(stranger.writeContract({ address: drop, abi, functionName: "setRoyalty", args: [creator, 100] }), "NotOwner");
    const receipt = await mined(owner.writeContract({ address: drop, abi, functionName: "setRoyalty", args: [stranger.account.address, 10_000] }));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "RoyaltyUpdated" });
    expect(event!.args).toEqual({ recipient: stranger.account.address, bps: 10_000n });
    expect(await read(drop, "royaltyInfo", [7n, 1_000n])).toEqual([stranger.account.address, 1_000n]);
  });

  it("reports no royalty when none was set", async () => {
    const drop = await newDrop();
    expect(await read(drop, "royaltyInfo", [1n, 10_000n])).toEqual([zeroAddress, 0n]);
  });
});

describe("metadata", () => {
  it("builds tokenURI from the base URI and the decimal id", async () => {
    const drop = await newDrop({ baseURI: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/" });
    await mint(drop, holder.account.address, 12n);
    expect(await read(drop, "tokenURI", [12n])).toBe("ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/12");
    await expectRevert(read(drop, "tokenURI", [13n]), "ERC721NonexistentToken");

    await expectRevert(stranger.writeContract({ address: drop, abi, functionName: "setBaseURI", args: ["x"] }), "NotOwner");
    const receipt = await mined(owner.writeContract({ address: drop, abi, functionName: "setBaseURI", args: ["https://revealed.example/"] }));
    const logs = parseEventLogs({ abi, logs: receipt.logs });
    expect(logs.map((l) => l.eventName)).toEqual(["BaseURIUpdated", "BatchMetadataUpdate"]);
    expect(await read(drop, "tokenURI", [1n])).toBe("https://revealed.example/1");

    await mined(owner.writeContract({ address: drop, abi, functionName: "setBaseURI", args: [""] }));
    expect(await read(drop, "tokenURI", [1n])).toBe("");
  });

  it("declares ERC-165, ERC-721, metadata, ERC-2981 and ERC-4906", async () => {
    const drop = await newDrop();
    for (const id of ["0x01ffc9a7", "0x80ac58cd", "0x5b5e139f", "0x2a55205a", "0x49064906"]) {
      expect(await read(drop, "supportsInterface", [id])).toBe(true);
    }
    expect(await read(drop, "supportsInterface", ["0xffffffff"])).toBe(false);
  });
});

describe("ownership", () => {
  it("transfers ownership with an event; only the owner can", async () => {
    const drop = await newDrop();
    await expectRevert(stranger.writeContract({ address: drop, abi, functionName: "transferOwnership", args: [stranger.account.address] }), "NotOwner");
    await expectRevert(owner.writeContract({ address: drop, abi, functionName: "transferOwnership", args: [zeroAddress] }), "InvalidOwner");
    await expectRevert(stranger.writeContract({ address: drop, abi, functionName: "setMinter", args: [stranger.account.address] }), "NotOwner");
    const receipt = await mined(owner.writeContract({ address: drop, abi, functionName: "transferOwnership", args: [holder.account.address] }));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "OwnershipTransferred" });
    expect(event!.args).toEqual({ previousOwner: owner.account.address, newOwner: holder.account.address });
    expect(await read(drop, "owner")).toBe(holder.account.address);
    await expectRevert(owner.writeContract({ address: drop, abi, functionName: "setBaseURI", args: ["x"] }), "NotOwner");
  });
});
