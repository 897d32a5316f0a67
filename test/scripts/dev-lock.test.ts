// One `npm run dev` per checkout (scripts/lib/dev-lock.mjs): the lock started twice, from this
// process and from a second Node process, and taken over once its holder is killed.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDevLock, DEV_LOCK_FILE, DevLockHeld, processRuns } from "../../scripts/lib/dev-lock.mjs";

const LOCK_MODULE = path.resolve("scripts/lib/dev-lock.mjs");
const dirs: string[] = [];
const children: ChildProcess[] = [];
const groups: number[] = [];

const checkout = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "dev-lock-"));
  dirs.push(dir);
  return dir;
};

/** A second Node process that takes the lock in `dir` and holds it until killed. */
async function holdInAnotherProcess(dir: string): Promise<ChildProcess> {
  const script = `import(${JSON.stringify(LOCK_MODULE)}).then(({ acquireDevLock }) => { acquireDevLock(${JSON.stringify(dir)}); console.log("held"); setInterval(() => {}, 1000); })`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("held") && resolve());
    child.on("exit", (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
  });
  return child;
}

const refusal = (dir: string) => {
  try {
    acquireDevLock(dir);
  } catch (error) {
    if (error instanceof DevLockHeld) return error;
    throw error;
  }
  throw new Error("the lock was taken twice");
};

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // the group has exited already
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the repository's scripts in a fresh directory, with this checkout's node_modules: a checkout of its own. */
function scratchCheckout(): string {
  const root = checkout();
  cpSync(path.resolve("scripts"), path.join(root, "scripts"), { recursive: true });
  symlinkSync(path.resolve("node_modules"), path.join(root, "node_modules"), "dir");
  return root;
}

/**
 * Runs `npm run dev`'s script in `root` until it exits. It leads its own process group, which
 * afterEach kills: a run that did start a stack (anvil, wrangler) leaves nothing behind.
 */
async function runDev(root: string) {
  const port = () => String(20_000 + Math.floor(Math.random() * 20_000));
  const child = spawn(process.execPath, [path.join(root, "scripts", "dev.mjs")], {
    cwd: root,
    env: { ...process.env, PORT: port(), ANVIL_PORT: port() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  groups.push(child.pid!);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, output };
}

describe("the dev lock", () => {
  it("refuses a second start while the first runs, naming its pid, and is free again once released", () => {
    const dir = checkout();
    const first = acquireDevLock(dir);
    expect(readFileSync(path.join(dir, DEV_LOCK_FILE), "utf8").trim()).toBe(String(process.pid));
    const refused = refusal(dir);
    expect(refused.pid).toBe(process.pid);
    expect(refused.message).toContain(`another \`npm run dev\` (pid ${process.pid}) is running in this checkout`);
    first.release();
    expect(existsSync(path.join(dir, DEV_LOCK_FILE))).toBe(false);
    acquireDevLock(dir).release();
  });

  it("refuses a start while another process holds it, and takes it over once that process is gone", async () => {
    const dir = checkout();
    const holder = await holdInAnotherProcess(dir);
    expect(refusal(dir).pid).toBe(holder.pid);
    expect(refusal(dir).message).toContain(`(pid ${holder.pid})`);

    // Killed without a chance to release: the lock names a pid that no longer runs.
    const gone = new Promise((resolve) => holder.once("exit", resolve));
    holder.kill("SIGKILL");
    await gone;
    expect(processRuns(holder.pid!)).toBe(false);
    const lock = acquireDevLock(dir);
    expect(readFileSync(lock.lockFile, "utf8").trim()).toBe(String(process.pid));
    lock.release();
  });

  it("makes npm run dev refuse to start in a checkout where another holds it, before it wipes or writes anything", async () => {
    const root = scratchCheckout();
    const holder = await holdInAnotherProcess(path.join(root, ".dev"));
    const { code, output } = await runDev(root);
    expect(code, output).toBe(1);
    expect(output).toContain(`another \`npm run dev\` (pid ${holder.pid}) is running in this checkout`);
    expect(readFileSync(path.join(root, ".dev", DEV_LOCK_FILE), "utf8").trim()).toBe(String(holder.pid));
    expect(existsSync(path.join(root, ".dev.vars"))).toBe(false);
    expect(existsSync(path.join(root, ".dev", "state"))).toBe(false);
  });

  it("takes over a lock whose content is no pid, and leaves no claim or stale file behind", () => {
    const dir = checkout();
    writeFileSync(path.join(dir, DEV_LOCK_FILE), "");
    const lock = acquireDevLock(dir);
    expect(readFileSync(lock.lockFile, "utf8").trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(dir) && !existsSync(lock.lockFile)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
