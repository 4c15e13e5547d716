/**
 * Compiles one question shape of the bench in a separate process, so that a planner that
 * fails, loops or exhausts memory on that shape is reported instead of stopping the bench.
 * Prints the emitted SQL; exits non-zero on an error.
 *
 *   node --import tsx bench/local/probe-shape.ts "authorize Document read"
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadCompiler } from "./compiler.js";
import type { AuthorizeQuestion, ListQuestion, ResourceType } from "./handwritten.js";

/** `authorize <Type> <action>` or `list <Type> <action>`. */
export function shapeOf(question: AuthorizeQuestion | ListQuestion): string {
  return `${"resource" in question ? "authorize" : "list"} ${question.resourceType} ${question.action}`;
}

/** Runs the probe in a child process; undefined when the shape compiles, else the reason. */
export function probeShape(shape: string, timeoutMs: number): string | undefined {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(
    process.execPath,
    ["--max-old-space-size=2048", "--import", "tsx", script, shape],
    { encoding: "utf8", timeout: timeoutMs },
  );
  if (child.error) return `no answer within ${timeoutMs / 1000} s`;
  if (child.status === 0) return undefined;
  const lines = `${child.stderr}`.split("\n").filter((line) => line.trim() !== "");
  const reason = lines.find((line) => /error/i.test(line)) ?? lines[0] ?? `exit ${child.status}`;
  return reason.trim().slice(0, 300);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [kind, type, action] = (process.argv[2] ?? "").split(" ");
  const policy = readFileSync(new URL("./policy.polar", import.meta.url), "utf8");
  const bindings = readFileSync(new URL("./bindings.yaml", import.meta.url), "utf8");
  const compiler = await loadCompiler(policy, bindings);
  if (!compiler || !type || !action) process.exit(2);
  const resourceType = type as ResourceType;
  console.log(
    kind === "list"
      ? compiler.list({ actor: 1, action, resourceType: "Document" }, "documents.id")
      : compiler.authorize({ actor: 1, action, resourceType, resource: 2 }),
  );
}
