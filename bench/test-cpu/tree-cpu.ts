/**
 * The CPU of a command's whole process tree (Linux): the test workers with their threads, and
 * what they start (Chromium, CLI processes, esbuild). `time` misses the workers vitest does not
 * wait for; this samples /proc every 50 ms and keeps each process's last reading, so a process
 * that lives less than that is missed. Prints the total and the share per program.
 *
 *   npx tsx bench/test-cpu/tree-cpu.ts npx vitest run --config bench/test-cpu/vitest.config.ts
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS = 100;

interface Reading {
  readonly name: string;
  readonly parent: number;
  readonly seconds: number;
}

/** A process's name, parent and CPU so far, or null once it is gone. */
function read(pid: number): Reading | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The name is in parentheses and may hold spaces; the fields after it are numbers.
  const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
  return { name, parent: Number(fields[1]), seconds };
}

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error("usage: tree-cpu.ts <command> [args…]");
const started = Date.now();
const child = spawn(command, args, { stdio: "inherit" });
const last = new Map<number, Reading>();

const timer = setInterval(() => {
  const readings = new Map<number, Reading>();
  for (const entry of readdirSync("/proc")) {
    const reading = /^\d+$/.test(entry) ? read(Number(entry)) : null;
    if (reading) readings.set(Number(entry), reading);
  }
  // The tree: the child, then every process whose parent is in it.
  const tree = new Set([child.pid!]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, { parent }] of readings) {
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of tree) {
    const reading = readings.get(pid);
    if (reading) last.set(pid, reading);
  }
}, 50);

child.on("exit", (code) => {
  clearInterval(timer);
  const byName = new Map<string, number>();
  for (const { name, seconds } of last.values()) {
    byName.set(name, (byName.get(name) ?? 0) + seconds);
  }
  const total = [...byName.values()].reduce((sum, seconds) => sum + seconds, 0);
  const shares = [...byName]
    .sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`);
  const wall = (Date.now() - started) / 1000;
  process.stderr.write(
    `tree-cpu: wall ${wall.toFixed(1)} s, cpu ${total.toFixed(1)} s: ${shares.join(", ")}\n`,
  );
  process.exitCode = code ?? 1;
});
