// CPU time of wrangler dev's processes (its Node process and workerd) and of this script, from
// /proc, so the report can say where a request's time goes on a 2-core machine. Linux only;
// elsewhere the figures are simply left out.
import { readFileSync, readdirSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on every Linux the project runs on

/** { wrangler, workerd } CPU ms so far of the processes in process group `pgid`. */
function groupCpu(pgid) {
  const out = { wrangler: 0, workerd: 0 };
  let entries;
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const pid of entries) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" "); // fields[0] is field 3 (state)
    if (Number(fields[2]) !== pgid) continue;
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
    out[comm.startsWith("workerd") ? "workerd" : "wrangler"] += ms;
  }
  return out;
}

const selfCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** This process's group: where a workerd that Miniflare started in-process lives. */
export function ownProcessGroup() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return null;
  }
}

/** Starts a CPU window over wrangler's group; the returned function ends it: ms per process kind. */
export function cpuWindow(pgid) {
  const before = pgid ? groupCpu(pgid) : null;
  const selfBefore = selfCpu();
  return () => {
    const after = groupCpu(pgid);
    if (!before || !after) return null;
    return { wrangler: after.wrangler - before.wrangler, workerd: after.workerd - before.workerd, client: selfCpu() - selfBefore };
  };
}
