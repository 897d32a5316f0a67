export declare const DEV_LOCK_FILE: "dev.lock";
export declare class DevLockHeld extends Error {
  readonly lockFile: string;
  readonly pid: number | "unknown";
}
/** Whether a process with this pid runs. */
export declare function processRuns(pid: number): boolean;
/** Takes `dir`/dev.lock for this process (a stale one is taken over); throws DevLockHeld naming a live holder's pid. */
export declare function acquireDevLock(dir: string): { lockFile: string; release(): void };
