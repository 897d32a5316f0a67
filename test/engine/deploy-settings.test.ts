// What a drop deployed through the API is on chain: every deploy setting read back from the
// contract (not from D1), the allowlist proof the API serves accepted by the contract's own
// claim(), a badge that cannot move, a price converted with the currency's own decimals, and an
// `s3` drop whose per-token metadata the claim writes to R2 and the metadata route serves.
import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { encodeFunctionData, keccak256, type Address, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { MAX_UNIT_PRICE } from "../../src/chain/drop-contract";
import { metadataBaseUri, toSmallestUnit } from "../../src/services/drops/deploy-drop";
import { chainClient, contractAnswering, ETHER, ownerOf } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { freshWallet } from "../helpers/wallets";

let project: TestProject;

const read = <T>(address: string, functionName: string, args: unknown[] = []) =>
  chainClient().readContract({ address: address as Address, abi: dropErc721Abi, functionName: functionName as never, args: args as never }) as Promise<T>;

const deploy = (body: Record<string, unknown>) => deployConfirmedDrop(project, body);
const claim = (body: Record<string, unknown>) => claimConfirmed(project, body);

beforeAll(async () => {
  project = await createTestProject("Deploy settings");
});

describe("a drop deployed through the API", () => {
  it("carries every deploy setting on chain, and its allowlist proof claims there", async () => {
    const claimer = await freshWallet();
    const royaltyRecipient = (await freshWallet()).address;
    const allowedPrice = ETHER / 100n;
    const startTime = new Date(Date.now() - 3_600_000);
    const drop = await deploy({
      name: "Settings Badge",
      mode: "badge",
      metadataStorageType: "self-hosted",
      baseUri: "https://example.com/settings/",
      totalSupply: 50,
      unitPrice: 0.05,
      startTime: startTime.toISOString(),
      limitPerWallet: 4,
      creatorFeeAddress: royaltyRecipient,
      creatorFeeBps: 750,
      whitelist: `${claimer.address},3,${allowedPrice}\n0x00000000000000000000000000000000000000aa,1,1`,
    });
    const contract = drop.contractAddress;

    expect(await read<Hex>(contract, "provenanceHash")).toBe(keccak256(drop.blindboxKey as Hex));
    expect(await read<[string, bigint]>(contract, "royaltyInfo", [1n, 10_000n])).toEqual([expect.stringMatching(new RegExp(`^${royaltyRecipient}$`, "i")), 750n]);
    expect(await read<number>(contract, "mode")).toBe(1);
    const proof = await call(`/v1/drops/${drop.id}/allowlist/${claimer.address}`, { apiKey: project.apiKey });
    expect(proof.status, JSON.stringify(proof.body)).toBe(200);
    type Conditions = { unitPrice: bigint; currency: string; startTime: number; limitPerWallet: number; maxSupply: number; merkleRoot: Hex };
    const { merkleRoot, ...conditions } = await read<Conditions>(contract, "claimConditions");
    expect(conditions).toEqual({
      unitPrice: ETHER / 20n,
      currency: "0x0000000000000000000000000000000000000000",
      startTime: Math.floor(startTime.getTime() / 1000),
      limitPerWallet: 4,
      maxSupply: 50,
    });
    expect(merkleRoot).not.toBe(`0x${"00".repeat(32)}`);

    // The claimer pays the allowlist price, not the unit price, with the API's proof.
    const claimed = await claimer.send({
      to: contract,
      value: 2n * allowedPrice,
      data: encodeFunctionData({
        abi: dropErc721Abi,
        functionName: "claim",
        args: [claimer.address, 2n, proof.body.proof as Hex[], BigInt(proof.body.maxClaimable), BigInt(proof.body.price)],
      }),
    });
    expect(claimed.status).toBe("success");
    expect((await ownerOf(contract, 1n)).toLowerCase()).toBe(claimer.address);
    // A badge does not move.
    await expect(
      chainClient().simulateContract({ account: claimer.account, address: contract as Address, abi: dropErc721Abi, functionName: "transferFrom", args: [claimer.address, royaltyRecipient as Address, 1n] }),
    ).rejects.toThrow(/Soulbound/);
  });

  it("points the baseURI at the metadata route whether or not PUBLIC_URL ends in a slash", async () => {
    const contract = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    for (const publicUrl of ["http://mintyard.test", "http://mintyard.test/", "http://mintyard.test//"]) {
      const baseUri = metadataBaseUri(publicUrl, 1868, contract);
      expect(baseUri).toBe("http://mintyard.test/v1/metadata/1868/0x5FbDB2315678afecb367f032d93F642f64180aa3/");
      // The route is reached (this address is no drop), not "no route for GET //v1/…".
      const answer = await SELF.fetch(`${baseUri}1`);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toBe("no drop at this contract");
    }
  });

  it("takes the OpenAPI maximum unitPrice for the native currency, and refuses anything above it with a 400", async () => {
    const document = (await call("/openapi.json")).body;
    const maximum = document.components.schemas.DeployDropRequest.properties.unitPrice.maximum as number;
    const drop = await deploy({ name: "Priciest", metadataStorageType: "self-hosted", baseUri: "https://example.com/priciest/", unitPrice: maximum });
    const { unitPrice } = await read<{ unitPrice: bigint }>(drop.contractAddress, "claimConditions");
    // (2^96 − 1) / 10^18 = 79228162514.264337593543950335, as far as a JSON number can say it.
    expect(maximum).toBe(79228162514.26433);
    expect(unitPrice).toBe(79_228_162_514_264_330_000_000_000_000n);
    expect(unitPrice <= MAX_UNIT_PRICE).toBe(true);
    // The maximum is the largest such number: the next one up no longer fits the uint96.
    const nextUp = (value: number) => new Float64Array(new BigInt64Array([new BigInt64Array(new Float64Array([value]).buffer)[0]! + 1n]).buffer)[0]!;
    expect(() => toSmallestUnit(nextUp(maximum), 18, "body.unitPrice")).toThrow(/too large/);

    const refused = (body: Record<string, unknown>) => call("/v1/project-wallet/drops/deploy", { secretKey: project.secretKey, body });
    const selfHosted = { name: "Too dear", metadataStorageType: "self-hosted", baseUri: "https://example.com/dear/" };
    for (const above of [nextUp(maximum), maximum + 1]) {
      const error = expectEnvelope(await refused({ ...selfHosted, unitPrice: above }), 400, "validation_error");
      expect(error.details).toEqual([{ path: "body.unitPrice", message: `must be at most ${maximum} (the contract's uint96 price at 18 decimals)` }]);
    }
    // 24 decimals: the same uint96 holds 10^6 times fewer whole units; the 400 names that bound.
    const twentyFour = await contractAnswering((24).toString(16).padStart(64, "0"));
    const error = expectEnvelope(await refused({ ...selfHosted, currencyAddress: twentyFour, unitPrice: 79_228.17 }), 400, "validation_error");
    expect(error.details).toEqual([{ path: "body.unitPrice", message: "is too large for this currency: at most 79228.162514264337593543950335 (the contract's uint96 price, in units of 10^-24)" }]);
  });

  it("prices in the currency's own decimals", async () => {
    const sixDecimals = await contractAnswering("6".padStart(64, "0")); // decimals() → 6, like USDC
    const drop = await deploy({ name: "Six", metadataStorageType: "self-hosted", baseUri: "https://example.com/six/", currencyAddress: sixDecimals, unitPrice: 1.5 });
    const { unitPrice, currency } = await read<{ unitPrice: bigint; currency: string }>(drop.contractAddress, "claimConditions");
    expect([unitPrice, currency.toLowerCase()]).toEqual([1_500_000n, sixDecimals.toLowerCase()]);
  });

  it("on s3 storage: the claim writes overrides to R2 and the metadata route serves them, the default otherwise", async () => {
    const drop = await deploy({ name: "Stored", metadataStorageType: "s3", defaultTokenMetadata: { name: "Stored default", image: "https://example.com/d.png" } });
    expect(drop.metadataRepoId).toBe(`r2:drops/${drop.id}`);
    const recipient = (await freshWallet()).address;
    const overridden = await claim({
      contractAddress: drop.contractAddress,
      recipientAddress: recipient,
      quantity: 2,
      overrideMetadata: [{ name: "First", attributes: [{ trait_type: "Rank", value: 1 }] }, { name: "Second" }],
    });
    const plain = await claim({ contractAddress: drop.contractAddress, recipientAddress: recipient, quantity: 1 });
    expect([...overridden, ...plain]).toEqual(["1", "2", "3"]);

    const stored = await env.METADATA.get(`drops/${drop.id}/1.json`);
    expect(await stored?.json()).toMatchObject({ name: "First", attributes: [{ trait_type: "Rank", value: 1 }] });
    expect(await env.METADATA.head(`drops/${drop.id}/3.json`)).toBeNull();
    const served = async (tokenId: string) => (await call(`/v1/metadata/1868/${drop.contractAddress}/${tokenId}`)).body.name;
    expect([await served("1"), await served("2"), await served("3")]).toEqual(["First", "Second", "Stored default"]);
    expect(await read<string>(drop.contractAddress, "tokenURI", [2n])).toBe(`http://mintyard.test/v1/metadata/1868/${drop.contractAddress}/2`);
  });
});
