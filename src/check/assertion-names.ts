/**
 * A warning for test assertions that name an action, permission or role their resource never
 * declares (`assert allow(User{"a"}, "raed", Repo{"r"})`): such an assertion can only fail, or
 * pass vacuously under `assert_not`, and is almost always a typo. See docs/policy-language.md,
 * "Assertion warnings".
 */
import type { Assertion, Item, Param, Term } from "../polar/ast.js";
import type { Diagnostic } from "../source/diagnostic.js";
import { didYouMean } from "../source/suggest.js";
import { checkDiagnostic } from "./problems.js";
import { type Clause, type Program, predicateKey } from "./program.js";
import { visitExpr } from "./walk.js";

/** The questions whose second argument names something the third argument's type declares. */
const NAMED = {
  allow: "action",
  has_permission: "permission",
  has_role: "role",
} as const;

type Named = keyof typeof NAMED;

/**
 * Adds a W009 warning per assertion whose action, permission or role is neither declared by
 * the resource's block nor written literally in the head of a rule for that question.
 *
 * @example
 * warnUndeclaredAssertionNames(items, program, diagnostics);
 * // warning[W009]: `raed` is not an action of `Repo` (help: did you mean `read`?)
 */
export function warnUndeclaredAssertionNames(
  items: readonly Item[],
  program: Pick<Program, "resources" | "rules">,
  diagnostics: Diagnostic[],
): void {
  for (const item of items) {
    if (item.kind !== "test") continue;
    for (const assertion of item.assertions) {
      const problem = undeclaredName(assertion, program);
      if (problem) diagnostics.push(problem);
    }
  }
}

function undeclaredName(
  assertion: Assertion,
  program: Pick<Program, "resources" | "rules">,
): Diagnostic | null {
  const question = assertion.query.name.name;
  if (!isNamed(question) || assertion.query.params.length !== 3) return null;
  const [, name, resource] = assertion.query.params as readonly [Param, Param, Param];
  if (name.kind !== "string" || resource.kind !== "object") return null;
  const meta = program.resources.get(resource.type.name);
  if (!meta || meta.kind === "global") return null;
  const declared = question === "has_role" ? meta.roles : [...meta.permissions, ...meta.roles];
  // A type that declares nothing of the kind leaves its names to rules.
  if (declared.length === 0) return null;
  const known = new Set([...declared, ...headLiterals(program, question)]);
  if (known.has(name.value)) return null;
  return checkDiagnostic(
    {
      code: "W009",
      kind: "undeclared-assertion-name",
      name: name.value,
      noun: NAMED[question],
      resource: meta.name,
    },
    name.span,
    didYouMean(name.value, known),
  );
}

function isNamed(name: string): name is Named {
  return Object.hasOwn(NAMED, name);
}

/**
 * Names that rules for `question` may grant: strings in the second position of their heads,
 * and, for a written rule with a variable there (`allow(a, action, r) if action in ["x"]`),
 * every string in its body.
 */
function headLiterals(program: Pick<Program, "rules">, question: Named): string[] {
  const sources: Named[] = question === "has_role" ? ["has_role"] : ["allow", "has_permission"];
  const found: string[] = [];
  const term = (t: Term) => {
    if (t.kind === "string") found.push(t.value);
  };
  for (const name of sources) {
    const clauses: readonly Clause[] = program.rules.get(predicateKey(name, 3)) ?? [];
    for (const clause of clauses) {
      const param = clause.params[1];
      if (param?.kind === "string") found.push(param.value);
      else if (clause.origin === "rule" && clause.body) visitExpr(clause.body, { term });
    }
  }
  return found;
}
