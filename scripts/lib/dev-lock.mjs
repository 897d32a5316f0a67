// One `npm run dev` per checkout. A second one would wipe the first one's local state
// (.dev/state) and rewrite .dev.vars with new secrets under it, and the first would then answer
// 500. The lock is `.dev/dev.lock` holding its holder's pid: created whole (written under another
// name, then hard-linked into place, which fails if it exists), so no reader ever sees it empty.
// A lock whose pid no longer runs is stale (its holder was killed) and is taken over.
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

export const DEV_LOCK_FILE = "dev.lock";

export class DevLockHeld extends Error {
  constructor(lockFile, pid) {
    super(`another \`npm run dev\` (pid ${pid}) is running in this checkout: stop it first (if pid ${pid} is not one, delete ${lockFile})`);
    this.name = "DevLockHeld";
    this.lockFile = lockFile;
    this.pid = pid;
  }
}

/** Whether a process with this pid runs (signal 0 only checks; EPERM means it runs as another user). */
export function processRuns(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** The pid a lock file names; null when its content is no pid; undefined when it is gone. */
function holderOf(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

const unlinkIfThere = (file) => {
  try {
    unlinkSync(file);
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
};

/**
 * Moves a stale lock aside and deletes it, unless what was moved is not the lock judged stale
 * (another starter took the stale lock over meanwhile): that one is put back.
 */
function removeStale(lockFile, stalePid) {
  const aside = `${lockFile}.stale.${process.pid}`;
  try {
    renameSync(lockFile, aside);
  } catch (error) {
    if (error.code === "ENOENT") return;
    throw error;
  }
  if (holderOf(aside) !== stalePid) {
    try {
      linkSync(aside, lockFile);
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
  unlinkIfThere(aside);
}

/**
 * Takes `dir`/dev.lock for this process, taking over a stale one; throws DevLockHeld naming the
 * pid of a live holder. `release()` deletes the lock if it is still this process's.
 */
export function acquireDevLock(dir) {
  mkdirSync(dir, { recursive: true });
  const lockFile = path.join(dir, DEV_LOCK_FILE);
  const claim = `${lockFile}.${process.pid}`;
  writeFileSync(claim, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(claim, lockFile);
        const release = () => {
          if (holderOf(lockFile) === process.pid) unlinkIfThere(lockFile);
        };
        return { lockFile, release };
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
      }
      const holder = holderOf(lockFile);
      if (holder && processRuns(holder)) throw new DevLockHeld(lockFile, holder);
      if (holder !== undefined) removeStale(lockFile, holder);
    }
    throw new DevLockHeld(lockFile, holderOf(lockFile) ?? "unknown");
  } finally {
    unlinkIfThere(claim);
  }
}
