// /docs in a real browser with the network closed: Debian's Chromium (playwright-core) against
// the real stack (wrangler dev serving the Worker and its static assets), every request to a
// host other than 127.0.0.1 aborted and recorded. The page must render every operation of
// /openapi.json from Swagger UI's pinned bundle (served from build/assets) without trying any
// other host, and without a script error or a CSP refusal. Skipped, saying so, without Chromium.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startStack, type Stack } from "../../scripts/lib/stack.mjs";

const CHROMIUM = process.env.MINTYARD_CHROMIUM ?? "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`[browser] skipped: ${CHROMIUM} is not installed (scripts/ensure-chromium.sh installs Debian's chromium as root; Playwright never downloads a browser here)`);
}
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const METHODS = new Set(["get", "put", "post", "delete", "patch", "options", "head", "trace"]);

let tmp: string;
let stack: Stack;
let context: BrowserContext;
let page: Page;
const elsewhere: string[] = [];
const problems: string[] = [];
const served: string[] = [];

describe("/docs in Chromium, offline", () => {
  beforeAll(async () => {
    if (!hasChromium) return;
    tmp = mkdtempSync(path.join(os.tmpdir(), "mintyard-docs-"));
    stack = await startStack({
      persistDir: path.join(tmp, "state"),
      secretsFile: path.join(tmp, "dev.vars"),
      snapshotDir: path.join(tmp, "bundle"),
      devtools: false,
    });
    context = await chromium.launchPersistentContext(path.join(tmp, "profile"), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    // The network is closed: only the stack on 127.0.0.1 answers, anything else is refused.
    await context.route("**/*", async (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === "127.0.0.1") {
        served.push(url.pathname);
        await route.continue();
      } else {
        elsewhere.push(url.href);
        await route.abort("internetdisconnected");
      }
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await stack?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)("lists every operation of /openapi.json, loading nothing but the Worker's own origin", async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([p, item]) => Object.keys(item).filter((m) => METHODS.has(m)).map((m) => `${m.toUpperCase()} ${p}`));
    expect(operations.length).toBeGreaterThan(20);

    await page.goto(`${stack.baseUrl}/docs`);
    await page.locator(".opblock").first().waitFor();
    const listed = await page.locator(".opblock").evaluateAll((blocks) =>
      blocks.map((block) => {
        const method = block.querySelector(".opblock-summary-method")?.textContent?.trim() ?? "";
        // A deprecated operation's path carries its own class.
        const pathElement = block.querySelector(".opblock-summary-path, .opblock-summary-path__deprecated");
        const pathText = pathElement?.getAttribute("data-path") ?? pathElement?.textContent ?? "";
        return `${method} ${pathText.replace(/\u200b/g, "").trim()}`;
      }),
    );
    expect(listed.sort()).toEqual([...operations].sort());
    await expect(page.locator(".info .title").textContent()).resolves.toContain("Mintyard");
    await page.screenshot({ path: path.join(ROOT, "test-results", "docs-offline.png"), fullPage: false });

    expect(served).toEqual(expect.arrayContaining(["/docs", "/docs/swagger-ui/swagger-ui.css", "/docs/swagger-ui/swagger-ui-bundle.js", "/docs/init.js", "/openapi.json"]));
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  });
});
