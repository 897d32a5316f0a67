// DropERC721.claim: price (native and ERC-20), start time, per-recipient limit, supply,
// allowlist, claim-condition updates and withdrawals. Anvil accounts 3-5 belong to this file.
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { parseEther, parseEventLogs, zeroAddress, zeroHash, type Address, type Hash } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts";
import { testErc20Abi, testErc20Bytecode } from "./artifacts/test-erc20";
import {
  anvilWallet,
  client,
  createDrop,
  defaultParams,
  deployFactory,
  deployed,
  expectRevert,
  freshWallet,
  increaseTime,
  mined,
  withErrors,
  type InitParams,
  type Wallet,
} from "./helpers";

const owner = anvilWallet(3);
const minter = anvilWallet(4);
const payer = anvilWallet(5);
const abi = dropErc721Abi;
const abiWithTokenErrors = withErrors(testErc20Abi);
const PRICE = parseEther("0.01");
let factory: Address;
let alice: Wallet;
let bob: Wallet;

beforeAll(async () => {
  ({ factory } = await deployFactory(owner));
  alice = await freshWallet("claim alice");
  bob = await freshWallet("claim bob");
});

const newDrop = (overrides: Partial<InitParams> = {}) =>
  createDrop(owner, factory, defaultParams(owner.account.address, minter.account.address, overrides));

/** claim(to, quantity) with no allowlist data, sent by `from` with `value`. */
function claim(from: Wallet, drop: Address, to: Address, quantity: bigint, value: bigint) {
  return from.writeContract({ address: drop, abi: abiWithTokenErrors, functionName: "claim", args: [to, quantity, [], 0n, 0n], value });
}

const balanceOf = (drop: Address, who: Address) => client.readContract({ address: drop, abi, functionName: "balanceOf", args: [who] });

describe("price in native currency", () => {
  it("takes exactly unitPrice x quantity", async () => {
    const drop = await newDrop({ unitPrice: PRICE });
    const a = alice.account.address;
    const args = await expectRevert(claim(alice, drop, a, 2n, 2n * PRICE - 1n), "IncorrectPayment");
    expect(args).toEqual([2n * PRICE, 2n * PRICE - 1n]);
    await expectRevert(claim(alice, drop, a, 2n, 2n * PRICE + 1n), "IncorrectPayment");
    await expectRevert(claim(alice, drop, a, 2n, 0n), "IncorrectPayment");

    const receipt = await mined(claim(alice, drop, a, 2n, 2n * PRICE));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "TokensClaimed" });
    expect(event!.args).toEqual({ claimer: a, to: a, firstTokenId: 1n, quantity: 2n, totalPrice: 2n * PRICE });
    expect(await balanceOf(drop, a)).toBe(2n);
    expect(await client.getBalance({ address: drop })).toBe(2n * PRICE);
  });

  it("refuses payment for a free drop and quantity 0", async () => {
    const drop = await newDrop();
    await expectRevert(claim(alice, drop, alice.account.address, 1n, 1n), "IncorrectPayment");
    await expectRevert(claim(alice, drop, alice.account.address, 0n, 0n), "InvalidQuantity");
    await mined(claim(alice, drop, alice.account.address, 1n, 0n));
  });
});

describe("price in an ERC-20", () => {
  it("pulls exactly the price with transferFrom and refuses native currency", async () => {
    const token = await deployed(owner.deployContract({ abi: testErc20Abi, bytecode: testErc20Bytecode }));
    const drop = await newDrop({ unitPrice: 5_000_000n, currency: token });
    const a = alice.account.address;
    await mined(alice.writeContract({ address: token, abi: testErc20Abi, functionName: "mint", args: [a, 100_000_000n] }));
    await mined(alice.writeContract({ address: token, abi: testErc20Abi, functionName: "approve", args: [drop, 15_000_000n - 1n] }));

    await expectRevert(claim(alice, drop, a, 3n, 0n), "ERC20InsufficientAllowance");
    await expectRevert(claim(alice, drop, a, 1n, 1n), "IncorrectPayment");
    await mined(claim(alice, drop, a, 2n, 0n));
    expect(await client.readContract({ address: token, abi: testErc20Abi, functionName: "balanceOf", args: [drop] })).toBe(10_000_000n);
    expect(await client.readContract({ address: token, abi: testErc20Abi, functionName: "balanceOf", args: [a] })).toBe(90_000_000n);
    expect(await balanceOf(drop, a)).toBe(2n);

    // Withdraw the proceeds: owner only, the whole balance, with an event.
    await expectRevert(alice.writeContract({ address: drop, abi, functionName: "withdraw", args: [token, a] }), "NotOwner");
    const receipt = await mined(owner.writeContract({ address: drop, abi, functionName: "withdraw", args: [token, owner.account.address] }));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "Withdrawn" });
    expect(event!.args).toEqual({ currency: token, to: owner.account.address, amount: 10_000_000n });
    expect(await client.readContract({ address: token, abi: testErc20Abi, functionName: "balanceOf", args: [drop] })).toBe(0n);
  });
});

describe("start time", () => {
  it("reverts before startTime and opens after it", async () => {
    const { timestamp } = await client.getBlock();
    const startTime = Number(timestamp) + 3_600;
    const drop = await newDrop({ startTime });
    const args = await expectRevert(claim(alice, drop, alice.account.address, 1n, 0n), "ClaimNotStarted");
    expect(args).toEqual([BigInt(startTime)]);
    await increaseTime(3_601);
    await mined(claim(alice, drop, alice.account.address, 1n, 0n));
  });
});

describe("per-wallet limit", () => {
  it("counts claims per recipient, whoever pays, and ignores mintTo", async () => {
    const drop = await newDrop({ limitPerWallet: 2 });
    const a = alice.account.address;
    await mined(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [a, 5n] }));
    await expectRevert(claim(alice, drop, a, 3n, 0n), "WalletLimitExceeded");
    await mined(claim(alice, drop, a, 2n, 0n));
    const args = await expectRevert(claim(payer, drop, a, 1n, 0n), "WalletLimitExceeded");
    expect(args).toEqual([2n, 2n]);
    // Alice can still pay for someone else.
    await mined(claim(alice, drop, bob.account.address, 2n, 0n));
    expect(await client.readContract({ address: drop, abi, functionName: "claimedBy", args: [a] })).toBe(2n);
    expect(await balanceOf(drop, a)).toBe(7n);
  });
});

describe("max supply", () => {
  it("caps claims and mintTo together; 0 means unlimited", async () => {
    const drop = await newDrop({ maxSupply: 5 });
    await mined(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [bob.account.address, 3n] }));
    const args = await expectRevert(claim(alice, drop, alice.account.address, 3n, 0n), "MaxSupplyExceeded");
    expect(args).toEqual([5n]);
    await mined(claim(alice, drop, alice.account.address, 2n, 0n));
    await expectRevert(
      minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [bob.account.address, 1n] }),
      "MaxSupplyExceeded",
    );

    const unlimited = await newDrop();
    await mined(minter.writeContract({ address: unlimited, abi, functionName: "mintTo", args: [bob.account.address, 500n] }));
    expect(await client.readContract({ address: unlimited, abi, functionName: "totalSupply" })).toBe(500n);
  });
});

describe("allowlist", () => {
  let tree: StandardMerkleTree<string[]>;
  let drop: Address;
  const proofFor = (address: Address) => {
    for (const [i, v] of tree.entries()) if (v[0] === address) return { proof: tree.getProof(i) as Hash[], leaf: v };
    throw new Error("not listed");
  };

  beforeAll(async () => {
    // Alice may claim 2 at 0.002 ETH; bob 1 for free. The public unit price is 0.01 ETH.
    tree = StandardMerkleTree.of(
      [
        [alice.account.address, "2", parseEther("0.002").toString()],
        [bob.account.address, "1", "0"],
        [payer.account.address, "5", PRICE.toString()],
      ],
      ["address", "uint256", "uint256"],
    );
    drop = await newDrop({ unitPrice: PRICE, merkleRoot: tree.root as Hash, limitPerWallet: 10 });
  });

  const claimListed = (from: Wallet, to: Address, quantity: bigint, proof: Hash[], allowed: bigint, price: bigint, value: bigint) =>
    from.writeContract({ address: drop, abi, functionName: "claim", args: [to, quantity, proof, allowed, price], value });

  it("lets a listed address claim at its leaf price, up to its leaf quantity", async () => {
    const a = alice.account.address;
    const { proof } = proofFor(a);
    const price = parseEther("0.002");
    await expectRevert(claimListed(alice, a, 1n, proof, 2n, price, PRICE), "IncorrectPayment");
    await mined(claimListed(alice, a, 1n, proof, 2n, price, price));
    const args = await expectRevert(claimListed(alice, a, 2n, proof, 2n, price, 2n * price), "WalletLimitExceeded");
    expect(args).toEqual([2n, 1n]);
    await mined(claimListed(alice, a, 1n, proof, 2n, price, price));
    await expectRevert(claimListed(alice, a, 1n, proof, 2n, price, price), "WalletLimitExceeded");
    expect(await balanceOf(drop, a)).toBe(2n);
  });

  it("rejects a wrong proof, a forged leaf, someone else's proof and no proof", async () => {
    const b = bob.account.address;
    const { proof } = proofFor(b);
    await expectRevert(claimListed(bob, b, 1n, proof, 5n, 0n, 0n), "InvalidProof"); // more than listed
    await expectRevert(claimListed(bob, b, 1n, proofFor(alice.account.address).proof, 1n, 0n, 0n), "InvalidProof");
    await expectRevert(claimListed(payer, payer.account.address, 1n, proof, 1n, 0n, 0n), "InvalidProof");
    await expectRevert(claimListed(bob, b, 1n, [], 1n, 0n, 0n), "InvalidProof");
    const stranger = await freshWallet("claim stranger");
    await expectRevert(claimListed(stranger, stranger.account.address, 1n, [], 0n, 0n, PRICE), "InvalidProof");
    // The right leaf: bob's free token, claimable by anyone on his behalf.
    await mined(claimListed(payer, b, 1n, proof, 1n, 0n, 0n));
    expect(await balanceOf(drop, b)).toBe(1n);
  });
});

describe("setClaimConditions", () => {
  it("is owner-only, emits, replaces the creation values and can drop the allowlist", async () => {
    const tree = StandardMerkleTree.of([[alice.account.address, "1", "0"]], ["address", "uint256", "uint256"]);
    const drop = await newDrop({ merkleRoot: tree.root as Hash, maxSupply: 10 });
    await expectRevert(claim(bob, drop, bob.account.address, 1n, 0n), "InvalidProof");
    await mined(minter.writeContract({ address: drop, abi, functionName: "mintTo", args: [bob.account.address, 4n] }));

    const conditions = { unitPrice: PRICE, currency: zeroAddress, startTime: 0, limitPerWallet: 1, maxSupply: 6, merkleRoot: zeroHash };
    await expectRevert(alice.writeContract({ address: drop, abi, functionName: "setClaimConditions", args: [conditions] }), "NotOwner");
    const args = await expectRevert(
      owner.writeContract({ address: drop, abi, functionName: "setClaimConditions", args: [{ ...conditions, maxSupply: 3 }] }),
      "MaxSupplyBelowMinted",
    );
    expect(args).toEqual([4n]);
    const receipt = await mined(owner.writeContract({ address: drop, abi, functionName: "setClaimConditions", args: [conditions] }));
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: "ClaimConditionsUpdated" });
    expect(event!.args).toEqual({ unitPrice: PRICE, currency: zeroAddress, startTime: 0n, limitPerWallet: 1n, maxSupply: 6n, merkleRoot: zeroHash });
    expect(await client.readContract({ address: drop, abi, functionName: "claimConditions" })).toEqual(conditions);

    // Public now: the new price and limit apply.
    await expectRevert(claim(bob, drop, bob.account.address, 1n, 0n), "IncorrectPayment");
    await mined(claim(bob, drop, bob.account.address, 1n, PRICE));
    await expectRevert(claim(bob, drop, bob.account.address, 1n, PRICE), "WalletLimitExceeded");

    // And back to allowlist-only, with a new root from storage.
    const tree2 = StandardMerkleTree.of([[bob.account.address, "5", "0"]], ["address", "uint256", "uint256"]);
    await mined(
      owner.writeContract({ address: drop, abi, functionName: "setClaimConditions", args: [{ ...conditions, merkleRoot: tree2.root as Hash }] }),
    );
    await expectRevert(claim(alice, drop, alice.account.address, 1n, PRICE), "InvalidProof");
    await mined(bob.writeContract({ address: drop, abi, functionName: "claim", args: [bob.account.address, 1n, tree2.getProof(0) as Hash[], 5n, 0n] }));
    await expectRevert(
      bob.writeContract({ address: drop, abi, functionName: "claim", args: [bob.account.address, 1n, tree2.getProof(0) as Hash[], 5n, 0n] }),
      "MaxSupplyExceeded",
    );
  });

  it("withdraws native proceeds to the owner's choice", async () => {
    const drop = await newDrop({ unitPrice: PRICE });
    await mined(claim(alice, drop, alice.account.address, 3n, 3n * PRICE));
    const to = (await freshWallet("claim withdraw target")).account.address;
    const before = await client.getBalance({ address: to });
    await mined(owner.writeContract({ address: drop, abi, functionName: "withdraw", args: [zeroAddress, to] }));
    expect((await client.getBalance({ address: to })) - before).toBe(3n * PRICE);
    expect(await client.getBalance({ address: drop })).toBe(0n);
  });
});
