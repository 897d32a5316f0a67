// CPU time per process from /proc (Linux), so a benchmark can say which process the 2 cores
// went to during a phase: the service (workerd), wrangler's Node process, anvil, or the
// benchmark client itself. Reading /proc costs next to nothing, so it is on in every run.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** { pid, comm, pgrp, cpuSeconds } or null when the process is gone (or this is not Linux). */
function readStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    // Fields after the command: state(3) ppid(4) pgrp(5) … utime(14) stime(15).
    const rest = text.slice(close + 2).split(" ");
    return { pid, comm, pgrp: Number(rest[2]), cpuSeconds: (Number(rest[11]) + Number(rest[12])) / clockTicks() };
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine since boot (/proc/stat: all but idle and iowait). */
function systemBusySeconds() {
  try {
    const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + steal) / clockTicks();
  } catch {
    return 0;
  }
}

/**
 * Returns sample() → { [group]: cpuSeconds } for: workerd (every workerd in wrangler's process
 * group), wrangler (its Node processes), anvil, bench (this process, proxies included) and
 * others (everything else on the machine: other people's tests make a run noisy, and this says
 * by how much).
 */
export function cpuSampler({ wranglerPid, anvilPid }) {
  return () => {
    const groups = { workerd: 0, wrangler: 0, anvil: readStat(anvilPid)?.cpuSeconds ?? 0, bench: readStat(process.pid)?.cpuSeconds ?? 0 };
    let pids = [];
    try {
      pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
    } catch {
      return { ...groups, others: 0 };
    }
    for (const pid of pids) {
      const stat = readStat(pid);
      if (!stat || stat.pgrp !== wranglerPid) continue;
      if (stat.comm === "workerd") groups.workerd += stat.cpuSeconds;
      else groups.wrangler += stat.cpuSeconds;
    }
    groups.others = systemBusySeconds() - (groups.workerd + groups.wrangler + groups.anvil + groups.bench);
    return groups;
  };
}

/** CPU seconds spent between two samples; never negative (a process reaped in between loses its count). */
export const cpuDelta = (before, after) => Object.fromEntries(Object.keys(after).map((key) => [key, Math.max(0, after[key] - (before[key] ?? 0))]));
