// DropFactory (CREATE2 clones, salts bound to the sender), the devnet deployment (the drop
// contracts through the CREATE2 deployer) and one Seaport sale of a drop token. Anvil accounts 6-8 and the devnet deployer belong to this file.
import { concat, encodeDeployData, keccak256, parseEther, parseEventLogs, toHex, type Address } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { deployDevnet } from "../../scripts/lib/devnet.mjs";
import { CREATE2_DEPLOYER, create2Address, create2Calldata } from "../../scripts/lib/create2.mjs";
import { DROP_SALTS, dropContractAddresses, dropContracts, inspectContract } from "../../scripts/lib/drop-contracts.mjs";
import { runtimeMatches } from "../../scripts/lib/runtime-code.mjs";
import { signBasicListing } from "../../scripts/lib/seaport-order.mjs";
import { dropErc721Abi, dropFactoryAbi, dropFactoryBytecode, seaportAbi } from "../../src/chain/artifacts";
import { anvilWallet, chain, client, defaultParams, deployFactory, expectRevert, mined, rpcUrl } from "./helpers";

const alice = anvilWallet(6);
const bob = anvilWallet(7);
const buyer = anvilWallet(8);
let factory: Address;
let implementation: Address;

beforeAll(async () => {
  ({ factory, implementation } = await deployFactory(alice));
});

const predict = (deployer: Address, salt: `0x${string}`) =>
  client.readContract({ address: factory, abi: dropFactoryAbi, functionName: "predictAddress", args: [deployer, salt] });

describe("createDrop", () => {
  it("deploys at the predicted address an EIP-1167 proxy carrying the drop's args, and says so", async () => {
    const salt = keccak256(toHex("factory: first"));
    const predicted = await predict(alice.account.address, salt);
    const params = defaultParams(bob.account.address, alice.account.address, { name: "Predicted", symbol: "PRED" });
    const receipt = await mined(alice.writeContract({ address: factory, abi: dropFactoryAbi, functionName: "createDrop", args: [salt, params] }));
    const [event] = parseEventLogs({ abi: dropFactoryAbi, logs: receipt.logs, eventName: "DropCreated" });
    expect(event!.args).toEqual({ drop: predicted, owner: bob.account.address, deployer: alice.account.address, salt });

    const code = (await client.getCode({ address: predicted }))!;
    const proxy = concat(["0x363d3d373d3d3d363d73", implementation.toLowerCase() as Address, "0x5af43d82803e903d91602b57fd5bf3"]);
    expect(code.startsWith(proxy)).toBe(true);
    expect(await client.readContract({ address: predicted, abi: dropErc721Abi, functionName: "name" })).toBe("Predicted");
    expect(await client.readContract({ address: predicted, abi: dropErc721Abi, functionName: "owner" })).toBe(bob.account.address);
  });

  it("binds the salt to the sender: same salt, different deployers, different addresses; no reuse", async () => {
    const salt = keccak256(toHex("factory: shared salt"));
    const forAlice = await predict(alice.account.address, salt);
    const forBob = await predict(bob.account.address, salt);
    expect(forAlice).not.toBe(forBob);

    const params = defaultParams(alice.account.address, alice.account.address);
    await mined(bob.writeContract({ address: factory, abi: dropFactoryAbi, functionName: "createDrop", args: [salt, params] }));
    expect(await client.getCode({ address: forBob })).toMatch(/^0x363d/);
    expect(await client.getCode({ address: forAlice })).toBeUndefined();
    await mined(alice.writeContract({ address: factory, abi: dropFactoryAbi, functionName: "createDrop", args: [salt, params] }));
    expect(await client.getCode({ address: forAlice })).toMatch(/^0x363d/);

    await expectRevert(
      alice.writeContract({ address: factory, abi: dropFactoryAbi, functionName: "createDrop", args: [salt, params] }),
      "DeploymentFailed",
    );
  });

  it("serves no code outside createDrop", async () => {
    // Any call that reaches the fallback outside a createDrop.
    const probeAbi = [{ type: "function", name: "probe", inputs: [], outputs: [], stateMutability: "view" }, ...dropFactoryAbi] as const;
    await expectRevert(client.readContract({ address: factory, abi: probeAbi, functionName: "probe" }), "NothingStaged");
  });
});

describe("devnet", () => {
  it("deploys Seaport, ConduitController and the factory at the same addresses every time", async () => {
    const first = await deployDevnet(rpcUrl);
    const second = await deployDevnet(rpcUrl);
    expect(second).toEqual(first);
    expect(first).toEqual({
      deployerAddress: "0x9c79328c2990cCb6993D210bce83Bb10908bC4Eb",
      conduitControllerAddress: "0x5e7967Ea78671955CB487Fc3873973eABEa846f5",
      seaportAddress: "0x56Cc688b9A0fe1D7A2b9C53d16D8943f5Cc4E3F5",
      // Through the CREATE2 deployer: wherever the current artifacts put them on any chain.
      ...dropContractAddresses(),
    });
    for (const address of [first.seaportAddress, first.conduitControllerAddress, first.dropImplementationAddress, first.dropFactoryAddress]) {
      expect((await client.getCode({ address }))?.length).toBeGreaterThan(2);
    }
    expect(await client.readContract({ address: first.dropFactoryAddress, abi: dropFactoryAbi, functionName: "implementation" })).toBe(
      first.dropImplementationAddress,
    );
    const [version, , conduitController] = await client.readContract({ address: first.seaportAddress, abi: seaportAbi, functionName: "information" });
    expect(version).toBe("1.6");
    expect(conduitController).toBe(first.conduitControllerAddress);
    expect(await client.readContract({ address: first.seaportAddress, abi: seaportAbi, functionName: "name" })).toBe("Seaport");
  });

  it("puts the drop contracts at their CREATE2 addresses with this build's code, its immutables checked", async () => {
    const devnet = await deployDevnet(rpcUrl);
    const [implementation, factory] = dropContracts();
    expect(factory!.address).toBe(create2Address(DROP_SALTS.dropFactoryAddress, factory!.initcode));
    expect(await inspectContract(client, implementation!)).toEqual({ status: "present" });
    expect(await inspectContract(client, factory!)).toEqual({ status: "present" });

    // The same factory code pointing at another implementation: equal outside the immutable,
    // told apart by implementation().
    const other = encodeDeployData({ abi: dropFactoryAbi, bytecode: dropFactoryBytecode, args: [alice.account.address] });
    const salt = keccak256(toHex("factory: other implementation"));
    await mined(alice.sendTransaction({ to: CREATE2_DEPLOYER, data: create2Calldata(salt, other) }));
    const otherAddress = create2Address(salt, other);
    expect(runtimeMatches(await client.getCode({ address: otherAddress }), factory!.artifact)).toBe(true);
    expect(await inspectContract(client, { ...factory!, address: otherAddress })).toEqual({
      status: "different",
      detail: `implementation() is ${alice.account.address}, expected ${devnet.dropImplementationAddress}`,
    });
    // Other code altogether, and no code.
    expect((await inspectContract(client, { ...factory!, address: devnet.seaportAddress })).status).toBe("different");
    expect(await inspectContract(client, { ...factory!, address: bob.account.address })).toEqual({ status: "missing" });
  });

  it("sells a drop token through Seaport with a basic order, paying the creator fee", async () => {
    const devnet = await deployDevnet(rpcUrl);
    const salt = keccak256(toHex("factory: seaport"));
    const drop = await client.readContract({
      address: devnet.dropFactoryAddress,
      abi: dropFactoryAbi,
      functionName: "predictAddress",
      args: [alice.account.address, salt],
    });
    const creator = bob.account.address;
    const params = defaultParams(alice.account.address, alice.account.address, { royaltyRecipient: creator, royaltyBps: 500 });
    await mined(alice.writeContract({ address: devnet.dropFactoryAddress, abi: dropFactoryAbi, functionName: "createDrop", args: [salt, params] }));
    await mined(alice.writeContract({ address: drop, abi: dropErc721Abi, functionName: "mintTo", args: [alice.account.address, 1n] }));
    await mined(alice.writeContract({ address: drop, abi: dropErc721Abi, functionName: "setApprovalForAll", args: [devnet.seaportAddress, true] }));

    const price = parseEther("1");
    const [, fee] = await client.readContract({ address: drop, abi: dropErc721Abi, functionName: "royaltyInfo", args: [1n, price] });
    const order = await signBasicListing({
      seller: alice.account,
      seaport: devnet.seaportAddress,
      chainId: chain.id,
      token: drop,
      tokenId: 1n,
      price,
      fee,
      feeRecipient: creator,
    });
    const creatorBefore = await client.getBalance({ address: creator });
    await mined(
      buyer.writeContract({ address: devnet.seaportAddress, abi: seaportAbi, functionName: "fulfillBasicOrder_efficient_6GL6yc", args: [order], value: price }),
    );
    expect(await client.readContract({ address: drop, abi: dropErc721Abi, functionName: "ownerOf", args: [1n] })).toBe(buyer.account.address);
    expect((await client.getBalance({ address: creator })) - creatorBefore).toBe(parseEther("0.05"));
  });
});
