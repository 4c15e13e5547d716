/**
 * A readable text form of plans, for debugging and plan snapshots.
 *
 *   cte r0(arg2: Folder)
 *     seed  from binding#0 f0 | where f0.arg0 = $actor, f0.arg1 = "reader" | out f0.arg2
 *     step  from binding#1 f1 | where f1.arg2 = rec.arg2 | out f1.arg0
 *   branch from cte#0 f0 | out f0.arg2
 */
import { builtinSpelling } from "../builtins/registry.js";
import { formatValue } from "../core/value.js";
import type { Branch, Condition, Output, Plan, RecursiveCte, Source, Term } from "./ir.js";
import { formatConstraint } from "./types.js";

/** `f0.arg2`, `"read"`, `$actor`, a builtin as written. */
function formatTerm(term: Term): string {
  switch (term.kind) {
    case "column":
      return `${term.alias}.${term.column}`;
    case "literal":
      return formatValue(term.value);
    case "param":
      return `$${term.name}`;
    case "builtin":
      return builtinSpelling(term.name);
    case "input":
      return `input${term.index}`;
    case "outer":
      return "<caller column>";
    case "null":
      return `null(${term.type})`;
    default: {
      const _never: never = term;
      return _never;
    }
  }
}

function formatOutput(output: Output): string {
  return output.kind === "any" ? `any(${formatConstraint(output.constraint)})` : formatTerm(output);
}

function formatSource(source: Source): string {
  switch (source.kind) {
    case "binding":
      return `binding#${source.binding}${source.facts ? "+facts" : ""}${source.rows ? `+${source.rows.length} rows` : ""}`;
    case "facts":
      return `facts ${source.predicates.join("|")}(${source.types.map((t) => t ?? "*").join(", ")})`;
    case "param":
      return `param $${source.name}: ${source.type}`;
    case "values":
      return `values(${source.columns.map((c) => c.name).join(", ")}) ${source.rows.length} rows`;
    case "cte":
      return `cte#${source.cte}`;
    case "recref":
    case "reccall":
      return `${source.kind} ${source.instance}[${source.args.map((a) => (a ? formatTerm(a) : "_")).join(", ")}]`;
    default: {
      const _never: never = source;
      return _never;
    }
  }
}

function formatCondition(condition: Condition, indent: string): string {
  switch (condition.kind) {
    case "compare":
      return `${formatTerm(condition.left)} ${condition.op} ${formatTerm(condition.right)}`;
    case "in":
      return `${formatTerm(condition.term)} in (${condition.values.map(formatTerm).join(", ")})`;
    case "not_exists":
    case "exists":
      return `${condition.kind === "exists" ? "exists" : "not exists"} (${condition.branches
        .map((b) => `\n${indent}    ${formatBranch(b, `${indent}    `)}`)
        .join("")})`;
    default: {
      const _never: never = condition;
      return _never;
    }
  }
}

/** One branch on one line (nested `not exists` branches on their own, indented). */
function formatBranch(branch: Branch, indent = ""): string {
  const parts: string[] = [];
  if (branch.sources.length > 0) {
    parts.push(
      `from ${branch.sources.map((s) => `${formatSource(s.source)} ${s.alias}`).join(", ")}`,
    );
  }
  if (branch.conditions.length > 0) {
    parts.push(`where ${branch.conditions.map((c) => formatCondition(c, indent)).join(", ")}`);
  }
  if (branch.outputs.length > 0) parts.push(`out ${branch.outputs.map(formatOutput).join(", ")}`);
  return parts.length > 0 ? parts.join(" | ") : "true";
}

function formatCte(cte: RecursiveCte, index: number): string {
  const columns = cte.columns.map((c) => `${c.name}: ${c.type}`).join(", ");
  const lines = [`cte r${index}(${columns})`];
  for (const seed of cte.seeds) lines.push(`  seed  ${formatBranch(seed, "  ")}`);
  for (const step of cte.steps)
    lines.push(`  step  ${formatBranch(step, "  ")} [self ${cte.self}]`);
  return lines.join("\n");
}

/** The whole plan, one line per CTE part and per branch. */
export function formatPlan(plan: Plan): string {
  const lines = plan.ctes.map(formatCte);
  const outputs = plan.outputs.map((o) => `${o.variable}: ${o.type}`).join(", ");
  lines.push(`outputs (${outputs})`);
  if (plan.branches.length === 0) lines.push("no branches");
  for (const branch of plan.branches) lines.push(`branch ${formatBranch(branch)}`);
  return lines.join("\n");
}
