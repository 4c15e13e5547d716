/**
 * CPU time by role during a bench phase, read from /proc (Linux): the load generator (this
 * process), the service instances, the PostgreSQL backends serving them, and the rest of the
 * machine (other processes, PostgreSQL's background writers, the kernel). On a shared 2-core
 * machine this says who used the cores while a figure was taken.
 *
 *   const before = await cpuSnapshot(roles);
 *   // … load …
 *   const cores = cpuShares(before, await cpuSnapshot(roles)); // role → cores used
 */
import { readFile } from "node:fs/promises";

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

export interface CpuRoles {
  /** Role name → the process ids whose CPU time counts for it (read when a snapshot is taken). */
  readonly pids: () => Promise<ReadonlyMap<string, readonly number[]>>;
}

export interface CpuSnapshot {
  readonly at: number;
  /** Busy time of the whole machine, seconds summed over its cores. */
  readonly machineBusy: number;
  /** CPU seconds per process id, with its role. */
  readonly processes: ReadonlyMap<number, { readonly role: string; readonly seconds: number }>;
}

async function processSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return null; // the process has exited
  }
}

async function machineBusySeconds(): Promise<number> {
  const [cpu] = (await readFile("/proc/stat", "utf8")).split("\n");
  const [, ...times] = cpu!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is all but idle, iowait and steal.
  const [user, nice, system, , , irq, softirq] = times as number[];
  return (user! + nice! + system! + irq! + softirq!) / TICKS;
}

export async function cpuSnapshot(roles: CpuRoles): Promise<CpuSnapshot> {
  const processes = new Map<number, { role: string; seconds: number }>();
  for (const [role, pids] of await roles.pids()) {
    for (const pid of pids) {
      const seconds = await processSeconds(pid);
      if (seconds !== null) processes.set(pid, { role, seconds });
    }
  }
  return { at: performance.now(), machineBusy: await machineBusySeconds(), processes };
}

/**
 * Cores used per role between two snapshots (CPU seconds / wall seconds), and `other` for the
 * rest of the machine's busy time. A process seen in only one snapshot does not count (a pooled
 * connection opened or closed meanwhile): the figures are a lower bound for PostgreSQL.
 */
export function cpuShares(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const wall = (after.at - before.at) / 1000;
  const shares = new Map<string, number>();
  let counted = 0;
  for (const [pid, now] of after.processes) {
    const then = before.processes.get(pid);
    if (!then) continue;
    const used = now.seconds - then.seconds;
    counted += used;
    shares.set(now.role, (shares.get(now.role) ?? 0) + used / wall);
  }
  shares.set("other", Math.max(0, after.machineBusy - before.machineBusy - counted) / wall);
  return shares;
}
