import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, type Address } from "viem";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { testErc20Abi, testErc20Bytecode } from "../contracts/artifacts/test-erc20";
import { ETHER, chainClient, contractAnswering, fund, rpc, waitForTransaction } from "../helpers/chain";
import { freshWallet } from "../helpers/wallets";
import { deployConfirmedDrop } from "../helpers/drops";
import { seedDrop } from "../fixtures/seed";
import { SELF } from "cloudflare:test";
import { BASE, call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

let project: TestProject;
let stranger: TestProject;
let drop: { id: string; contractAddress: string };
const recipient = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

beforeAll(async () => {
  project = await createTestProject("Wallet endpoints");
  stranger = await createTestProject("Stranger");
  await fund(stranger.walletAddress);
  drop = await deployConfirmedDrop(project, { name: "Capped", metadataStorageType: "s3", defaultTokenMetadata: { name: "Capped" }, totalSupply: 5 });
});

describe("claim", () => {
  it("rejects bad input with the right codes", async () => {
    const claim = (body: Record<string, unknown>, key = project.secretKey) => call("/v1/project-wallet/drops/claim", { secretKey: key, body });
    const base = { contractAddress: drop.contractAddress, recipientAddress: recipient };
    const invalid: [Record<string, unknown>, string][] = [
      [{ ...base, recipientAddress: "" }, "body.recipientAddress"],
      [{ ...base, recipientAddress: "0x1234" }, "body.recipientAddress"],
      [{ ...base, recipientAddress: "0x0000000000000000000000000000000000000000" }, "body.recipientAddress"],
      [{ ...base, quantity: 0 }, "body.quantity"],
      [{ ...base, quantity: 201 }, "body.quantity"],
      [{ ...base, quantity: 1.5 }, "body.quantity"],
      [{ ...base, quantity: 2, overrideMetadata: [{ name: "only one" }] }, "body.overrideMetadata"],
      [{ ...base, overrideMetadata: [{ description: "no name" }] }, "body.overrideMetadata.0.name"],
      // Links other projects' pages will show: no javascript:, file: or data:text/html.
      [{ ...base, overrideMetadata: [{ name: "x", externalUrl: "javascript:alert(1)" }] }, "body.overrideMetadata.0.externalUrl"],
      [{ ...base, overrideMetadata: [{ name: "x", image: "data:text/html,<script>alert(1)</script>" }] }, "body.overrideMetadata.0.image"],
      [{ ...base, overrideMetadata: [{ name: "x", animationUrl: "file:///etc/passwd" }] }, "body.overrideMetadata.0.animationUrl"],
      [{ ...base, chainId: "1868" }, "body.chainId"],
      [{ ...base, extra: true }, "body.extra"],
    ];
    for (const [body, path] of invalid) {
      const error = expectEnvelope(await claim(body), 400, "validation_error");
      expect(error.details?.map((d) => d.path), JSON.stringify(body)).toContain(path);
    }
    expectEnvelope(await claim({ ...base, chainId: 1 }), 400, "unsupported_chain");
    expectEnvelope(await claim({ ...base, contractAddress: "0x000000000000000000000000000000000000dEaD" }), 404, "not_found");
    // Another project's drop looks like no drop at all; its projectId in the body is a 403.
    expectEnvelope(await claim(base, stranger.secretKey), 404, "not_found");
    expectEnvelope(await claim({ ...base, projectId: stranger.id }), 403, "forbidden");
    expectEnvelope(await call("/v1/project-wallet/drops/claim", { apiKey: project.apiKey, body: base }), 403, "forbidden");
    expectEnvelope(await call("/v1/project-wallet/drops/claim", { body: base }), 401, "unauthorized");
  });

  it("refuses metadata nested too deep or too large with a 400 at the field, and sends nothing", async () => {
    const nonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const before = await nonce();
    // 100,000 levels: JSON.parse takes it; stored, it would be served as metadata (decision 48).
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const target = `"contractAddress":"${drop.contractAddress}","recipientAddress":"${recipient}"`;
    const rawCases: [string, string, string][] = [
      ["/v1/project-wallet/drops/claim", `{${target},"overrideMetadata":[{"name":"a","properties":{"x":${deep}}}]}`, "body.overrideMetadata.0.properties"],
      ["/v1/project-wallet/drops/claim", `{${target},"overrideMetadata":[{"name":"a","attributes":[{"trait_type":"t","value":${deep}}]}]}`, "body.overrideMetadata.0.attributes.0.value"],
      ["/v1/project-wallet/mint", `{${target},"metadata":{"name":"a","properties":{"x":${deep}}}}`, "body.metadata.properties"],
      ["/v1/project-wallet/drops/deploy", `{"name":"Deep","metadataStorageType":"metadata-api","defaultTokenMetadata":{"name":"a","properties":{"x":${deep}}}}`, "body.defaultTokenMetadata.properties"],
    ];
    for (const [path, rawBody, field] of rawCases) {
      const error = expectEnvelope(await call(path, { secretKey: project.secretKey, rawBody }), 400, "validation_error");
      expect(error.details).toContainEqual({ path: field, message: "must not nest deeper than 32 levels" });
    }
    // A `__proto__` key, which a record parse would drop without a word, is refused where it is.
    const protoCases: [string, string, string][] = [
      ["/v1/project-wallet/drops/claim", `{${target},"overrideMetadata":[{"name":"a","properties":{"__proto__":{"admin":true},"kept":1}}]}`, "body.overrideMetadata.0.properties.__proto__"],
      ["/v1/project-wallet/drops/claim", `{${target},"overrideMetadata":[{"name":"a","attributes":[{"trait_type":"t","value":[{"__proto__":1}]}]}]}`, "body.overrideMetadata.0.attributes.0.value.0.__proto__"],
      ["/v1/project-wallet/mint", `{${target},"metadata":{"name":"a","properties":{"x":{"y":{"__proto__":null}}}}}`, "body.metadata.properties.x.y.__proto__"],
      ["/v1/project-wallet/drops/deploy", `{"name":"Proto","metadataStorageType":"metadata-api","defaultTokenMetadata":{"name":"a","properties":{"__proto__":[]}}}`, "body.defaultTokenMetadata.properties.__proto__"],
    ];
    for (const [path, rawBody, field] of protoCases) {
      const error = expectEnvelope(await call(path, { secretKey: project.secretKey, rawBody }), 400, "validation_error");
      expect(error.details).toEqual([{ path: field, message: 'must not use the key "__proto__"' }]);
    }
    const notAnObject = expectEnvelope(await call("/v1/project-wallet/mint", { secretKey: project.secretKey, rawBody: `{${target},"metadata":{"name":"a","properties":[1]}}` }), 400, "validation_error");
    expect(notAnObject.details).toEqual([{ path: "body.metadata.properties", message: "Invalid input: expected object" }]);
    // 32 levels are fine (a deploy, so the capped drop's supply stays whole for the next test).
    const deepest = JSON.parse(`${"[".repeat(31)}1${"]".repeat(31)}`);
    const ok = await call("/v1/project-wallet/drops/deploy", { secretKey: project.secretKey, body: { name: "Deepest", metadataStorageType: "metadata-api", defaultTokenMetadata: { name: "ok", properties: { x: deepest } } } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);

    // One token's metadata is at most 64 KiB as JSON, a claim's overrides 1,000,000 bytes in all.
    const big = { name: "big", properties: { blob: "ü".repeat(33_000) } };
    const tooBig = expectEnvelope(await call("/v1/project-wallet/mint", { secretKey: project.secretKey, body: { contractAddress: drop.contractAddress, recipientAddress: recipient, metadata: big } }), 400, "validation_error");
    expect(tooBig.details).toEqual([{ path: "body.metadata", message: "is 66039 bytes as JSON; at most 65536" }]);
    // Within the 1 MiB body limit only through invalid UTF-8: each 0xFF byte decodes to U+FFFD,
    // three bytes, so 20 overrides of 20,000 such bytes (60 KB each) are 1.2 MB as JSON.
    const encoder = new TextEncoder();
    const override = (i: number) => [encoder.encode(`{"name":"large ${i}","properties":{"blob":"`), new Uint8Array(20_000).fill(0xff), encoder.encode(`"}}`)];
    const parts = [encoder.encode(`{${target},"quantity":20,"overrideMetadata":[`), ...Array.from({ length: 20 }, (_, i) => [...(i ? [encoder.encode(",")] : []), ...override(i)]).flat(), encoder.encode("]}")];
    const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
    parts.reduce((offset, part) => (bytes.set(part, offset), offset + part.length), 0);
    const response = await SELF.fetch(`${BASE}/v1/project-wallet/drops/claim`, { method: "POST", headers: { authorization: `Bearer ${project.secretKey}`, "content-type": "application/json" }, body: bytes });
    const tooMuch = expectEnvelope({ status: response.status, headers: response.headers, body: await response.json() }, 400, "validation_error");
    expect(tooMuch.details).toEqual([{ path: "body.overrideMetadata", message: expect.stringMatching(/^is 120\d{4} bytes as JSON; at most 1000000 in all$/) }]);
    expect(await nonce()).toBe(before + 1);
  });

  it("enforces the supply with 422 sold_out before any nonce is used", async () => {
    const claimed = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: { contractAddress: drop.contractAddress, recipientAddress: recipient, quantity: 4 },
    });
    expect(claimed.status).toBe(201);
    const pendingNonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const transactionsRecorded = async () => (await call("/v1/transactions", { apiKey: project.apiKey })).body.pagination.total as number;
    const [nonceBefore, recordedBefore] = [await pendingNonce(), await transactionsRecorded()];
    const soldOut = expectEnvelope(
      await call("/v1/project-wallet/drops/claim", {
        secretKey: project.secretKey,
        body: { contractAddress: drop.contractAddress, recipientAddress: recipient, quantity: 2 },
      }),
      422,
      "sold_out",
    );
    expect(soldOut.message).toContain("only 1 of 5");
    expect([await pendingNonce(), await transactionsRecorded()]).toEqual([nonceBefore, recordedBefore]);
    const last = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: { contractAddress: drop.contractAddress, recipientAddress: recipient },
    });
    expect(last.body.assets.map((a: { tokenId: string }) => a.tokenId)).toEqual(["5"]);
    expect((await waitForTransaction(last.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");
  });
});

describe("a project wallet that cannot pay for gas", () => {
  it("gets 422 insufficient_funds on deploy, with nothing sent or left behind", async () => {
    const broke = await createTestProject("Unfunded");
    const refused = expectEnvelope(
      await call("/v1/project-wallet/drops/deploy", { secretKey: broke.secretKey, body: { name: "No gas", metadataStorageType: "s3", defaultTokenMetadata: { name: "No gas" } } }),
      422,
      "insufficient_funds",
    );
    expect(refused.message).toContain("cannot pay");
    expect(await chainClient().getTransactionCount({ address: broke.walletAddress as Address, blockTag: "pending" })).toBe(0);
    expect((await call("/v1/transactions", { apiKey: broke.apiKey })).body.data).toEqual([]);
    expect((await call(`/v1/drops?filter.projectId=${broke.id}`, { apiKey: broke.apiKey })).body.meta.totalItems).toBe(0);
  });
});

describe("a claim the chain would revert", () => {
  it("is a 422 naming the contract's custom error, and takes no nonce", async () => {
    const owner = await createTestProject("Minter moved");
    await fund(owner.walletAddress);
    const moved = await deployConfirmedDrop(owner, { name: "Minter moved", metadataStorageType: "s3", defaultTokenMetadata: { name: "Moved" } });
    // The drop's owner (the project wallet) hands minting to someone else, outside the service.
    const someoneElse = "0x000000000000000000000000000000000000bEEF";
    await rpc("anvil_impersonateAccount", [owner.walletAddress]);
    const hash = await rpc<string>("eth_sendTransaction", [
      { from: owner.walletAddress, to: moved.contractAddress, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "setMinter", args: [someoneElse] }) },
    ]);
    await rpc("anvil_stopImpersonatingAccount", [owner.walletAddress]);
    await chainClient().waitForTransactionReceipt({ hash: hash as `0x${string}` });
    const nonceBefore = await chainClient().getTransactionCount({ address: owner.walletAddress as Address, blockTag: "pending" });

    const refused = expectEnvelope(
      await call("/v1/project-wallet/drops/claim", { secretKey: owner.secretKey, body: { contractAddress: moved.contractAddress, recipientAddress: recipient } }),
      422,
      "execution_reverted",
    );
    expect(refused.message).toBe(`the transaction would revert: NotMinter(${owner.walletAddress})`);
    expect(await chainClient().getTransactionCount({ address: owner.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore);
    const pending = await call("/v1/transactions?status=pending", { apiKey: owner.apiKey });
    expect(pending.body.data).toEqual([]);
  });
});

describe("a drop whose deployment failed", () => {
  it("is a 409 conflict to claim and mint, and nothing is sent", async () => {
    const failed = await seedDrop(project.id, { status: "failed" });
    const nonceBefore = await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    for (const path of ["/v1/project-wallet/drops/claim", "/v1/project-wallet/mint"]) {
      const refused = expectEnvelope(await call(path, { secretKey: project.secretKey, body: { contractAddress: failed.contractAddress, recipientAddress: recipient } }), 409, "conflict");
      expect(refused.message, path).toBe("this drop's deployment failed; it cannot be minted");
    }
    expect(await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore);
  });
});

describe("a claim sent while its drop's deployment was pending", () => {
  it("ends reverted, not confirmed, when the deployment never landed and nothing was minted", async () => {
    // As if the deploy were still out: the claim goes without simulation (no code yet), and the
    // address never gets any, so the call "succeeds" on an empty account.
    const orphan = await seedDrop(project.id, { status: "pending" });
    const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body: { contractAddress: orphan.contractAddress, recipientAddress: recipient } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    const settled = await waitForTransaction(claimed.body.transactions[0].id, project.apiKey);
    expect(settled).toMatchObject({ status: "reverted", errorMessage: expect.stringContaining("nothing was minted") });
    expect(settled.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chainClient().getTransactionReceipt({ hash: settled.transactionHash });
    expect([receipt.status, receipt.logs.length]).toEqual(["success", 0]);
  });
});

describe("mint (deprecated)", () => {
  it("mints with one metadata object for every token and says it is deprecated", async () => {
    const deployed = await call("/v1/project-wallet/drops/deploy", {
      secretKey: project.secretKey,
      body: { name: "Legacy", metadataStorageType: "metadata-api", defaultTokenMetadata: { name: "Legacy" } },
    });
    const minted = await call("/v1/project-wallet/mint", {
      secretKey: project.secretKey,
      // A legacy uint256 id beyond 2^53: ignored, so accepted.
      body: { contractAddress: deployed.body.drop.contractAddress, recipientAddress: recipient, quantity: 2, tokenId: 2 ** 60, metadata: { name: "Same" } },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    expect(minted.headers.get("deprecation")).toBe("true");
    expect(minted.body).toMatchObject({ status: "pending", projectId: project.id, metadata: null });
    expect((await waitForTransaction(minted.body.id, project.apiKey)).status).toBe("confirmed");
    // tokenId is ignored: the drop assigned 1 and 2.
    const second = await call(`/v1/assets/1868/${deployed.body.drop.contractAddress}/2`, { apiKey: project.apiKey });
    expect(second.body.name).toBe("Same");
    // Every response of the deprecated route says so, errors included.
    const refused = await call("/v1/project-wallet/mint", { secretKey: project.secretKey, body: { recipientAddress: recipient } });
    expectEnvelope(refused, 400, "validation_error");
    expect([refused.headers.get("deprecation"), refused.headers.get("link")]).toEqual(["true", '</v1/project-wallet/drops/claim>; rel="successor-version"']);
    const unauthenticated = await call("/v1/project-wallet/mint", { body: { recipientAddress: recipient } });
    expect([unauthenticated.status, unauthenticated.headers.get("deprecation")]).toEqual([401, "true"]);
  });
});

describe("transfer", () => {
  it("sends native currency after a balance check", async () => {
    const to = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const before = await chainClient().getBalance({ address: to });
    const sent = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body: { type: "native", recipientAddress: to, amount: "12345" } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ status: "pending", value: "12345", data: "0x" });
    expect((await waitForTransaction(sent.body.id, project.apiKey)).status).toBe("confirmed");
    expect(await chainClient().getBalance({ address: to })).toBe(before + 12345n);
  });

  it("rejects what cannot be sent", async () => {
    const transfer = (body: Record<string, unknown>) => call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body });
    const to = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    expectEnvelope(await transfer({ type: "native", recipientAddress: to, amount: (1000n * ETHER).toString() }), 422, "insufficient_funds");
    expectEnvelope(await transfer({ type: "native", recipientAddress: to, amount: "0" }), 400, "validation_error");
    expectEnvelope(await transfer({ type: "native", recipientAddress: to, amount: "-1" }), 400, "validation_error");
    expectEnvelope(await transfer({ type: "native", recipientAddress: to, amount: "1.5" }), 400, "validation_error");
    expectEnvelope(await transfer({ type: "erc20", recipientAddress: to, amount: "1" }), 400, "validation_error");
    expectEnvelope(await transfer({ type: "btc", recipientAddress: to, amount: "1" }), 400, "validation_error");
    expectEnvelope(await transfer({ type: "erc20", recipientAddress: to, amount: "1", tokenAddress: to }), 400, "validation_error");
    const burned = expectEnvelope(await transfer({ type: "native", recipientAddress: "0x0000000000000000000000000000000000000000", amount: "1" }), 400, "validation_error");
    expect(burned.details).toEqual([{ path: "body.recipientAddress", message: expect.stringContaining("zero address") }]);
  });
});

describe("ERC20", () => {
  it("transfers an ERC20 from the project wallet and prices a drop in it with the token's decimals", async () => {
    const issuer = await freshWallet();
    const token = await issuer.deploy(testErc20Abi, testErc20Bytecode);
    await issuer.send({ to: token, data: encodeFunctionData({ abi: testErc20Abi, functionName: "mint", args: [project.walletAddress as Address, 1000n] }) });
    const to = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";
    const balanceOf = (owner: string) => chainClient().readContract({ address: token, abi: testErc20Abi, functionName: "balanceOf", args: [owner as Address] });

    const sent = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body: { type: "erc20", tokenAddress: token, recipientAddress: to, amount: "250" } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ value: "0", to: expect.stringMatching(new RegExp(token.slice(2), "i")) });
    expect((await waitForTransaction(sent.body.id, project.apiKey)).status).toBe("confirmed");
    expect(await balanceOf(to)).toBe(250n);
    expect(await balanceOf(project.walletAddress)).toBe(750n);
    expectEnvelope(
      await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body: { type: "erc20", tokenAddress: token, recipientAddress: to, amount: "751" } }),
      422,
      "insufficient_funds",
    );

    const priced = await call("/v1/project-wallet/drops/deploy", {
      secretKey: project.secretKey,
      body: { name: "Paid in TUSD", metadataStorageType: "self-hosted", baseUri: "https://example.com/p/", currencyAddress: token, unitPrice: 1.5 },
    });
    expect(priced.status, JSON.stringify(priced.body)).toBe(201);
    await waitForTransaction(priced.body.transactions[0].id, project.apiKey);
    const conditions = await chainClient().readContract({ address: priced.body.drop.contractAddress, abi: dropErc721Abi, functionName: "claimConditions" });
    expect(JSON.stringify(conditions, (_k, v) => (typeof v === "bigint" ? v.toString() : v)).toLowerCase()).toContain(token.slice(2));
    expect(JSON.stringify(conditions, (_k, v) => (typeof v === "bigint" ? v.toString() : v))).toContain("1500000000000000000");
    expectEnvelope(
      await call("/v1/project-wallet/drops/deploy", {
        secretKey: project.secretKey,
        body: { name: "Too precise", metadataStorageType: "self-hosted", baseUri: "https://example.com/p/", currencyAddress: token, unitPrice: 0.0000000000000000001 },
      }),
      400,
      "validation_error",
    );
  });
});

describe("a currency whose decimals() cannot price a drop", () => {
  it("is a 400 naming currencyAddress, never a 500 or a 502", async () => {
    const deploy = (currencyAddress: string) =>
      call("/v1/project-wallet/drops/deploy", {
        secretKey: project.secretKey,
        body: { name: "Odd currency", metadataStorageType: "self-hosted", baseUri: "https://example.com/p/", currencyAddress, unitPrice: 1 },
      });
    const cases = [
      // 2^40 decimals decode as a number: 10^(2^40) would not fit in memory.
      { answer: "ffffffffff".padStart(64, "0"), message: "reports 1099511627775 decimals; at most 77 fit a uint256 price" },
      // Beyond 2^53 viem refuses to decode a uint8 as a number.
      { answer: "f".repeat(64), message: "is not an ERC20 token on this chain (decimals() failed)" },
      // Two bytes where a word is due.
      { answer: "1234", message: "is not an ERC20 token on this chain (decimals() failed)" },
    ];
    for (const { answer, message } of cases) {
      const refused = expectEnvelope(await deploy(await contractAnswering(answer)), 400, "validation_error");
      expect(refused.details).toEqual([{ path: "body.currencyAddress", message }]);
    }
  });
});

describe("Idempotency-Key", () => {
  it("replays the first response, refuses reuse with another body, and sends once", async () => {
    const to = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    const key = `transfer-${crypto.randomUUID()}`;
    const body = { type: "native", recipientAddress: to, amount: "777" };
    const first = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    const again = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expectEnvelope(
      await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body: { ...body, amount: "778" }, headers: { "idempotency-key": key } }),
      409,
      "idempotency_conflict",
    );
    // Keys are per project: the same key elsewhere is a new request.
    const other = await call("/v1/project-wallet/transfer", { secretKey: stranger.secretKey, body, headers: { "idempotency-key": key } });
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);

    // The answer is kept for 24 h; after that the key is free and the same request runs again.
    const record = () =>
      env.DB.prepare("select created_at, expires_at from idempotency_keys where project_id = ? and key = ?").bind(project.id, key).first<{ created_at: number; expires_at: number }>();
    const kept = (await record())!;
    expect(kept.expires_at - kept.created_at).toBe(24 * 3_600_000);
    await env.DB.prepare("update idempotency_keys set expires_at = ? where project_id = ? and key = ?").bind(Date.now() - 1, project.id, key).run();
    const afterExpiry = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    expect([afterExpiry.status, afterExpiry.headers.get("idempotent-replayed")]).toEqual([201, null]);
    expect(afterExpiry.body.id).not.toBe(first.body.id);
    expect((await record())!.expires_at).toBeGreaterThan(Date.now());
  });

  it("replays deploy, claim and mint as well: each sends one transaction however often it is retried", async () => {
    const nonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const twice = async (path: string, body: unknown) => {
      const headers = { "idempotency-key": `${path}-${crypto.randomUUID()}` };
      const first = await call(path, { secretKey: project.secretKey, body, headers });
      const again = await call(path, { secretKey: project.secretKey, body, headers });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
      expect(again.body).toEqual(first.body);
      return first.body;
    };
    const before = await nonce();
    const deployed = await twice("/v1/project-wallet/drops/deploy", { name: "Retried", metadataStorageType: "metadata-api", defaultTokenMetadata: { name: "Retried" } });
    const claimed = await twice("/v1/project-wallet/drops/claim", { contractAddress: deployed.drop.contractAddress, recipientAddress: recipient, quantity: 2 });
    const minted = await twice("/v1/project-wallet/mint", { contractAddress: deployed.drop.contractAddress, recipientAddress: recipient });
    expect(await nonce()).toBe(before + 3);
    expect(claimed.assets.map((asset: { tokenId: string }) => asset.tokenId)).toEqual(["1", "2"]);
    for (const transaction of [deployed.transactions[0], claimed.transactions[0], minted]) {
      expect((await waitForTransaction(transaction.id, project.apiKey)).status).toBe("confirmed");
    }
  });

  it("replays a response too large for a D1 row: the body is kept in R2 and goes with the record", async () => {
    // 200 claimed assets, each repeating 45 KB of varied text (the token's and the collection's
    // descriptions): about 9 MB, over D1's 2,000,000-byte row, and too far apart for gzip's 32 KiB
    // window to shorten much.
    let seed = 7;
    const varied = (length: number) => Array.from({ length }, () => String.fromCharCode(0x4e00 + ((seed = (seed * 48271) % 2147483647) % 20_000))).join("");
    const roomy = await deployConfirmedDrop(project, {
      name: "Roomy",
      description: varied(5_000),
      metadataStorageType: "metadata-api",
      defaultTokenMetadata: { name: "Roomy", description: varied(10_000) },
    });
    const key = `large-${crypto.randomUUID()}`;
    const body = { contractAddress: roomy.contractAddress, recipientAddress: recipient, quantity: 200 };
    const first = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(201);
    const again = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    expect([again.status, again.headers.get("idempotent-replayed"), again.headers.get("content-type")]).toEqual([201, "true", first.headers.get("content-type")]);
    expect(again.body).toEqual(first.body);

    const record = () => env.DB.prepare("select status, response_body from idempotency_keys where project_id = ? and key = ?").bind(project.id, key).first<{ status: string; response_body: string }>();
    const stored = await record();
    expect(stored?.status).toBe("completed");
    expect(new TextEncoder().encode(JSON.stringify(first.body)).length).toBeGreaterThan(2_000_000);
    const objectKey = stored!.response_body.replace(/^r2:/, "");
    expect(objectKey).toMatch(/^idempotency\/[0-9a-f-]{36}\/[0-9a-f]{64}\/[0-9a-f-]{36}$/);
    expect(JSON.parse(await (await env.METADATA.get(objectKey))!.text())).toEqual(first.body);
    expect((await waitForTransaction(first.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");

    // Past its 24 h, the indexer's sweep deletes the object, then the record.
    await env.DB.prepare("update idempotency_keys set expires_at = ? where project_id = ? and key = ?").bind(Date.now() - 1, project.id, key).run();
    expect((await call("/v1/admin/index", { admin: true, method: "POST" })).status).toBe(200);
    expect([await record(), await env.METADATA.head(objectKey)]).toEqual([null, null]);
  });

  it("lets exactly one of many concurrent duplicates send", async () => {
    const to = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
    const key = `burst-${crypto.randomUUID()}`;
    const before = await chainClient().getBalance({ address: to });
    const nonceBefore = await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body: { type: "native", recipientAddress: to, amount: "1000" }, headers: { "idempotency-key": key } }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.error.code === "conflict"))).toBe(true);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    await waitForTransaction(created[0]!.body.id, project.apiKey);
    expect(await chainClient().getBalance({ address: to })).toBe(before + 1000n);
    // A duplicate answered 409 but broadcast anyway would still hold the next nonce.
    expect(await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore + 1);
  });

  it("rejects keys over 200 characters", async () => {
    const error = expectEnvelope(
      await call("/v1/project-wallet/transfer", {
        secretKey: project.secretKey,
        body: { type: "native", recipientAddress: recipient, amount: "1" },
        headers: { "idempotency-key": "k".repeat(201) },
      }),
      400,
      "validation_error",
    );
    expect(error.details?.[0]?.path).toBe("header.idempotency-key");
  });
});
