// The dashboard in a real browser (issue 7): Debian's Chromium driven by playwright-core against
// the real stack (anvil + devnet contracts + the Worker in workerd, scripts/lib/stack.mjs). The
// admin creates a project and a secret key, signs out, signs in with that key, sees the wallet
// and no drops, watches a transaction go from pending to confirmed without reloading, and creates
// and revokes an API key. A screenshot per step lands in test-results/screenshots/.
//
// Chromium comes from the OS (scripts/ensure-chromium.sh, run by .ci/run), never from a
// Playwright download. Without /usr/bin/chromium the test is skipped, and says so.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startStack, type Stack } from "../../scripts/lib/stack.mjs";

// Overridable only to check the skip path (MINTYARD_CHROMIUM=/nowhere).
const CHROMIUM = process.env.MINTYARD_CHROMIUM ?? "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`[browser] skipped: ${CHROMIUM} is not installed (scripts/ensure-chromium.sh installs Debian's chromium as root; Playwright never downloads a browser here)`);
}

// The flags a CI container needs: no sandbox as root, and no background connections, which a
// closed network refuses many at a time.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SCREENSHOTS = path.join(ROOT, "test-results", "screenshots");

let tmp: string;
let stack: Stack;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

async function shot(name: string) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function signIn(credential: string) {
  await page.goto(`${stack.baseUrl}/dashboard`);
  await page.getByLabel("Admin token or secret key").fill(credential);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function apiStatus(pathName: string, apiKey: string) {
  return (await fetch(`${stack.baseUrl}${pathName}`, { headers: { "x-api-key": apiKey } })).status;
}

describe("dashboard in Chromium", () => {
  beforeAll(async () => {
    if (!hasChromium) return;
    tmp = mkdtempSync(path.join(os.tmpdir(), "mintyard-browser-"));
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    // wrangler dev on a bundle taken now (others may be editing src/ meanwhile), its DevTools
    // detached. Secrets go to a temporary file, never to the developer's .dev.vars.
    stack = await startStack({
      persistDir: path.join(tmp, "state"),
      secretsFile: path.join(tmp, "dev.vars"),
      snapshotDir: path.join(tmp, "bundle"),
      devtools: false,
      vars: { ENGINE_POLL_MS: "250", ENGINE_MAX_POLL_MS: "1000" },
    });
    context = await chromium.launchPersistentContext(path.join(tmp, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1200, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // A 4xx document (the wrong sign-in's 401, /favicon.ico's 404) is logged as a failed
      // resource: expected. Anything else, a CSP refusal above all, is a problem.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
    });
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await stack?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)("signs in, creates a project and keys, sees the wallet, drops and live transactions, revokes a key", async () => {
    // 1. Signed out, then a wrong credential: the page says why.
    await page.goto(`${stack.baseUrl}/dashboard`);
    await expect(page.getByRole("heading", { name: "Sign in" }).isVisible()).resolves.toBe(true);
    await shot("01-sign-in");
    await signIn("not-the-admin-token");
    expect(await page.getByRole("alert").textContent()).toContain("invalid admin token or secret key");
    await shot("02-sign-in-error");

    // 2. The admin: projects, create one.
    await signIn(stack.adminToken);
    await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
    await shot("03-admin-projects");
    await page.getByLabel("Project name").fill("Browser project");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name: "Browser project", level: 1 }).waitFor();
    expect(await page.getByRole("status").first().textContent()).toContain("created");
    const projectUrl = page.url();
    expect(projectUrl).toMatch(/\/dashboard\/projects\/[0-9a-f-]{36}$/);
    await shot("04-project-created");

    // 3. A secret key, shown once.
    await page.getByLabel("Kind").selectOption("secret");
    await page.getByRole("button", { name: "Create key" }).click();
    const secretKey = (await page.locator("#created-key").textContent())!.trim();
    expect(secretKey).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    await shot("05-secret-key-created");
    await page.reload();
    expect(await page.locator("#created-key").count()).toBe(0);

    // 4. Sign out.
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(await page.getByRole("status").textContent()).toContain("You are signed out.");
    await shot("06-signed-out");

    // 5. Sign in with the secret key: its project, its wallet, no drops.
    await signIn(secretKey);
    await page.getByRole("heading", { name: "Browser project", level: 1 }).waitFor();
    expect(page.url()).toBe(projectUrl);
    const walletAddress = (await page.locator("#wallet-address").textContent())!;
    expect(walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await page.locator('tr[data-chain-id="1868"]').textContent()).toContain("0 ETH");
    expect(await page.locator("#drops-empty").textContent()).toBe("No drops yet.");
    expect(await page.getByRole("heading", { name: "Projects" }).count()).toBe(0);
    await shot("07-project-as-secret-key");

    // 6. Live status: with mining paused a transfer stays pending; once blocks resume, the
    // page's script shows it confirmed without a reload.
    await stack.anvil.rpc("anvil_setBalance", [walletAddress, "0xde0b6b3a7640000"]);
    await stack.anvil.rpc("evm_setIntervalMining", [0]);
    const transfer = await fetch(`${stack.baseUrl}/v1/project-wallet/transfer`, {
      method: "POST",
      headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "native", chainId: 1868, recipientAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "1000" }),
    });
    expect(transfer.status).toBe(201);
    const { id: transactionId } = (await transfer.json()) as { id: string };
    await page.reload();
    const status = page.locator(`tr[data-tx-id="${transactionId}"] [data-status]`);
    expect(await status.textContent()).toBe("pending");
    await shot("08-transaction-pending");
    await stack.anvil.rpc("evm_setIntervalMining", [1]);
    await page.locator(`tr[data-tx-id="${transactionId}"] [data-status="confirmed"]`).waitFor({ timeout: 20_000 });
    expect(await page.locator("#tx-refresh").textContent()).toMatch(/^Updated at /);
    await shot("09-transaction-confirmed");

    // 7. An API key: created, works, revoked, refused.
    await page.getByLabel("Kind").selectOption("api");
    await page.getByRole("button", { name: "Create key" }).click();
    const apiKey = (await page.locator("#created-key").textContent())!.trim();
    expect(apiKey).toMatch(/^ak_[0-9A-Za-z]{40}$/);
    const apiKeyId = await page.locator("#created-key").getAttribute("data-key-id");
    await shot("10-api-key-created");
    expect(await apiStatus("/v1/drops", apiKey)).toBe(200);
    await page.locator(`tr[data-key-id="${apiKeyId}"]`).getByRole("button", { name: /^Revoke api key/ }).click();
    expect(await page.getByRole("status").first().textContent()).toMatch(/API key ak_\w{6}… revoked\./);
    expect(await page.locator(`tr[data-key-id="${apiKeyId}"]`).textContent()).toContain("revoked");
    await shot("11-api-key-revoked");
    expect(await apiStatus("/v1/drops", apiKey)).toBe(401);

    // 8. Sign out again; the page is the sign-in form.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token or secret key").waitFor();
    await shot("12-signed-out-again");

    // No CSP violation (the inline style and script carry the nonce) and no script error.
    expect(problems).toEqual([]);
  }, 60_000);
});
