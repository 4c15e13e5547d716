/**
 * The message tables: every problem kind of the parser (src/polar/problems.ts), the checker
 * (src/check/problems.ts), the bindings reader and checks (src/bindings/problems.ts) and the
 * later stages (src/source/problems.ts) has a one-line message that names its subject, and
 * errors raised through the tables keep
 * their code, `file:line:col` and code frame. The sample records are typed by kind, so a kind
 * added without a sample does not compile; the runtime checks catch an empty message.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateQueryLocal } from "../src/api/local.js";
import { checkBindings } from "../src/bindings/check.js";
import { DataBindingsError, parseDataBindings } from "../src/bindings/parse.js";
import {
  type BindingsProblem,
  type BindingsProblemKind,
  bindingsDiagnostic,
  describeBindingsProblem,
} from "../src/bindings/problems.js";
import { checkPolicy, checkPolicyOrThrow, PolicyError } from "../src/check/check.js";
import {
  type CheckProblem,
  type CheckProblemKind,
  checkDiagnostic,
} from "../src/check/problems.js";
import { quoteIdentifier } from "../src/dialects/postgres/literal.js";
import { PlanError } from "../src/plan/errors.js";
import {
  describeParseProblem,
  type ParseProblem,
  type ParseProblemKind,
} from "../src/polar/problems.js";
import { formatDiagnostic, formatDiagnosticLine } from "../src/source/format.js";
import { describeProblem, type Problem, type ProblemKind } from "../src/source/problems.js";
import { StageError } from "../src/source/stage-error.js";
import { LiteralError } from "../src/sql/literal-error.js";
import { checked } from "./local-support.js";

type Samples<P extends { readonly kind: string }, K extends string> = {
  readonly [Kind in K]: Extract<P, { readonly kind: Kind }>;
};

const PARSE: Samples<ParseProblem, ParseProblemKind> = {
  "unexpected-character": { code: "P001", kind: "unexpected-character", char: "$" },
  "unterminated-string": { code: "P002", kind: "unterminated-string" },
  "line-break-in-string": { code: "P003", kind: "line-break-in-string" },
  "float-literal": { code: "P004", kind: "float-literal", image: "1.5" },
  "integer-too-large": { code: "P005", kind: "integer-too-large", image: "99999999999999999999" },
  "unexpected-token": { code: "P006", kind: "unexpected-token", image: "}", expected: "`;`" },
  "missing-semicolon": { code: "P006", kind: "missing-semicolon", after: "]" },
  "unexpected-end": { code: "P007", kind: "unexpected-end", expected: "`)`" },
  "double-equals": { code: "P008", kind: "double-equals" },
  isa: { code: "P008", kind: "isa" },
  "attribute-lookup": { code: "P008", kind: "attribute-lookup", object: "user", field: "name" },
  "nesting-too-deep": { code: "P009", kind: "nesting-too-deep", levels: 64 },
  "item-too-deep": { code: "P009", kind: "item-too-deep" },
  "dangling-colons": { code: "P010", kind: "dangling-colons", name: "App::" },
  "in-needs-list": { code: "P303", kind: "in-needs-list" },
  "matches-needs-variable": { code: "P304", kind: "matches-needs-variable" },
  "lone-term": { code: "P307", kind: "lone-term", text: "x" },
};

const CHECK: Samples<CheckProblem, CheckProblemKind> = {
  "unknown-declaration": { code: "P101", kind: "unknown-declaration", key: "role", block: "Doc" },
  "declaration-not-list": {
    code: "P102",
    kind: "declaration-not-list",
    key: "roles",
    block: "Doc",
  },
  "relations-not-dictionary": { code: "P102", kind: "relations-not-dictionary", block: "Doc" },
  "relation-without-type": {
    code: "P103",
    kind: "relation-without-type",
    relation: "parent",
    block: "Doc",
  },
  "key-declared-twice": { code: "P104", kind: "key-declared-twice", key: "roles", block: "Doc" },
  "term-declared-twice": { code: "P105", kind: "term-declared-twice", term: "read", block: "Doc" },
  "relation-undeclared-type": {
    code: "P106",
    kind: "relation-undeclared-type",
    relation: "parent",
    block: "Doc",
    type: "Folder",
  },
  "relation-not-entity": {
    code: "P106",
    kind: "relation-not-entity",
    relation: "parent",
    block: "Doc",
    type: "String",
  },
  "global-twice": { code: "P107", kind: "global-twice" },
  "global-relations": { code: "P108", kind: "global-relations" },
  "extends-undeclared": { code: "P109", kind: "extends-undeclared", type: "Doc", target: "Base" },
  "extends-primitive": { code: "P109", kind: "extends-primitive", type: "Doc", target: "String" },
  "cyclic-extends": { code: "P110", kind: "cyclic-extends", path: ["A", "B", "A"] },
  "reserved-type-name": { code: "P111", kind: "reserved-type-name", type: "String", global: false },
  "type-declared-twice": { code: "P111", kind: "type-declared-twice", type: "Doc" },
  "abstract-value": { code: "P112", kind: "abstract-value", type: "Actor" },
  "string-literal-needed": { code: "P113", kind: "string-literal-needed", written: "3" },
  "integer-literal-needed": { code: "P113", kind: "integer-literal-needed", written: '"3"' },
  "boolean-literal-needed": { code: "P113", kind: "boolean-literal-needed", written: "1" },
  "entity-id-not-string": { code: "P113", kind: "entity-id-not-string", type: "Team", id: "1" },
  "entity-id-empty": { code: "P113", kind: "entity-id-empty", type: "Team" },
  "undeclared-term": {
    code: "P201",
    kind: "undeclared-term",
    term: "viewer",
    block: "Doc",
    global: false,
  },
  "relation-as-head": { code: "P202", kind: "relation-as-head", relation: "parent", block: "Doc" },
  "not-a-relation": {
    code: "P203",
    kind: "not-a-relation",
    relation: "parent",
    block: "Doc",
    unquoted: true,
  },
  "not-in-related-type": {
    code: "P204",
    kind: "not-in-related-type",
    term: "admin",
    type: "Org",
    relation: "org",
    block: "Doc",
  },
  "not-in-global": { code: "P205", kind: "not-in-global", term: "admin" },
  "on-in-global": { code: "P206", kind: "on-in-global" },
  "negation-cycle": { code: "P301", kind: "negation-cycle", path: ["p", "q", "p"] },
  "only-under-not": { code: "P302", kind: "only-under-not", variable: "x", rule: "allow" },
  "type-arities-disagree": {
    code: "P305",
    kind: "type-arities-disagree",
    predicate: "owns",
    first: 2,
    other: 3,
  },
  "arity-not-declared": {
    code: "P306",
    kind: "arity-not-declared",
    predicate: "owns",
    arity: 3,
    declared: 2,
  },
  "unknown-fixture": { code: "P401", kind: "unknown-fixture", fixture: "base", test: "owners" },
  "duplicate-test": { code: "P402", kind: "duplicate-test", test: "owners" },
  "duplicate-fixture": { code: "P403", kind: "duplicate-fixture", fixture: "base" },
  "assertion-variables": { code: "P404", kind: "assertion-variables", variables: ["x", "y"] },
  "assert-not-iff": { code: "P405", kind: "assert-not-iff" },
  "setup-not-ground": {
    code: "P406",
    kind: "setup-not-ground",
    found: { kind: "variable", name: "x" },
  },
  "iff-without-variable": { code: "P407", kind: "iff-without-variable" },
  "iff-other-variable": { code: "P408", kind: "iff-other-variable", variable: "x", other: "y" },
  "unknown-fact-predicate": { code: "P501", kind: "unknown-fact-predicate", predicate: "owns/2" },
  "fact-argument-type": {
    code: "P502",
    kind: "fact-argument-type",
    predicate: "owns",
    position: 0,
    accepted: ["User", "Team"],
    type: "Doc",
  },
  "fact-argument-empty": { code: "P503", kind: "fact-argument-empty" },
  "fact-argument-too-long": { code: "P504", kind: "fact-argument-too-long", bytes: 384 },
  "fact-integer": { code: "P505", kind: "fact-integer", id: "1.5" },
  "fact-boolean": { code: "P506", kind: "fact-boolean", id: "yes" },
  "undeclared-type": { code: "W001", kind: "undeclared-type", type: "Folder" },
  "matches-bang": { code: "W002", kind: "matches-bang" },
  "undeclared-assertion-name": {
    code: "W009",
    kind: "undeclared-assertion-name",
    name: "raed",
    noun: "action",
    resource: "Repo",
  },
};

const at = { column: 0, signature: "is_open(Doc:_)", columnType: "text", slotType: "Doc" };

const BINDINGS: Samples<BindingsProblem, BindingsProblemKind> = {
  "invalid-signature": { code: "P706", kind: "invalid-signature", signature: "f(" },
  "signature-missing-type": { code: "P706", kind: "signature-missing-type", signature: "f(:_)" },
  "signature-invalid-type": {
    code: "P706",
    kind: "signature-invalid-type",
    type: "1x",
    signature: "f(1x:_)",
  },
  "signature-abstract-type": {
    code: "P706",
    kind: "signature-abstract-type",
    type: "Actor",
    signature: "f(Actor:_)",
  },
  "signature-nul": { code: "P706", kind: "signature-nul", signature: "f(a)" },
  "signature-invalid-integer": {
    code: "P706",
    kind: "signature-invalid-integer",
    value: "x",
    signature: "f(Integer:x)",
  },
  "signature-invalid-boolean": {
    code: "P706",
    kind: "signature-invalid-boolean",
    value: "yes",
    signature: "f(Boolean:yes)",
  },
  "signature-empty-id": {
    code: "P706",
    kind: "signature-empty-id",
    type: "Doc",
    signature: 'f(Doc:"")',
  },
  "invalid-yaml": { code: "P704", kind: "invalid-yaml", reason: "unexpected end of the stream" },
  "unknown-section": { code: "P705", kind: "unknown-section", key: "fact" },
  "unknown-binding-key": {
    code: "P705",
    kind: "unknown-binding-key",
    key: "sql",
    signature: "is_open(Doc:_)",
  },
  "document-not-mapping": { code: "P701", kind: "document-not-mapping" },
  "section-not-mapping": { code: "P701", kind: "section-not-mapping", section: "keys" },
  "duplicate-section": { code: "P701", kind: "duplicate-section", section: "facts" },
  "binding-without-query": {
    code: "P701",
    kind: "binding-without-query",
    signature: "is_open(Doc:_)",
  },
  "binding-not-mapping": { code: "P701", kind: "binding-not-mapping", signature: "is_open(Doc:_)" },
  "query-not-string": { code: "P701", kind: "query-not-string", signature: "is_open(Doc:_)" },
  "duplicate-binding": { code: "P701", kind: "duplicate-binding", signature: "is_open(Doc:_)" },
  "invalid-query": {
    code: "P701",
    kind: "invalid-query",
    signature: "is_open(Doc:_)",
    defect: { kind: "parameter", parameter: "$1" },
  },
  "sql-type-not-string": { code: "P701", kind: "sql-type-not-string", type: "Doc" },
  "invalid-type-name": { code: "P701", kind: "invalid-type-name", type: "1x" },
  "sql-type-for-builtin": {
    code: "P701",
    kind: "sql-type-for-builtin",
    type: "String",
    abstract: false,
  },
  "duplicate-sql-type": { code: "P701", kind: "duplicate-sql-type", type: "Doc" },
  "invalid-sql-type": { code: "P701", kind: "invalid-sql-type", sqlType: "int;", type: "Doc" },
  "key-not-columns": { code: "P701", kind: "key-not-columns", table: "docs" },
  "invalid-key-table": { code: "P701", kind: "invalid-key-table", table: "a.b.c" },
  "duplicate-key-table": { code: "P701", kind: "duplicate-key-table", table: "docs" },
  "invalid-key-column": { code: "P701", kind: "invalid-key-column", column: "a.b", table: "docs" },
  "undeclared-binding-type": {
    code: "W010",
    kind: "undeclared-binding-type",
    type: "Usr",
    signature: "has_role(Usr:_, String:_, Doc:_)",
    suggestion: "; did you mean `User`?",
  },
  "column-count": {
    code: "P708",
    kind: "column-count",
    signature: "is_open(Doc:_)",
    columns: 2,
    slots: 1,
    database: false,
  },
  "unread-predicate": {
    code: "W004",
    kind: "unread-predicate",
    predicate: "is_opn",
    suggestion: "",
  },
  "unread-arity": {
    code: "W004",
    kind: "unread-arity",
    predicate: "is_open",
    arities: [1],
    signature: "is_open(Doc:_, Boolean:_)",
    arity: 2,
  },
  "unread-constant": {
    code: "W004",
    kind: "unread-constant",
    noun: "role",
    value: "ownr",
    signature: "has_role(User:_, String:ownr, Doc:_)",
    suggestion: "",
  },
  "unread-types": {
    code: "W004",
    kind: "unread-types",
    predicate: "is_open",
    signature: "is_open(Org:_)",
  },
  "unproduced-fact": {
    code: "W005",
    kind: "unproduced-fact",
    fact: "is_open(Doc:_)",
    central: false,
    rule: "policy.polar:3:1",
  },
  "unknown-sql-type": { code: "W006", kind: "unknown-sql-type", type: "Dco", suggestion: "" },
  "unused-key": { code: "W006", kind: "unused-key", table: "docs" },
  "query-rejected": {
    code: "P709",
    kind: "query-rejected",
    signature: "is_open(Doc:_)",
    reason: 'relation "docz" does not exist',
  },
  "computed-column": { code: "W008", kind: "computed-column", ...at },
  "column-not-primitive": { code: "P710", kind: "column-not-primitive", ...at },
  "column-may-not-compare": { code: "W008", kind: "column-may-not-compare", ...at },
  "untyped-column": {
    code: "W008",
    kind: "untyped-column",
    dialect: "postgres",
    family: "integer",
    base: "bigint",
    ...at,
  },
  "sql-type-mismatch": { code: "P710", kind: "sql-type-mismatch", declared: "uuid", ...at },
  "key-table-missing": { code: "P711", kind: "key-table-missing", table: "docs" },
  "key-columns-missing": {
    code: "P711",
    kind: "key-columns-missing",
    table: "docs",
    columns: ["slug"],
  },
  "key-not-unique": {
    code: "P711",
    kind: "key-not-unique",
    table: "docs",
    columns: ["slug"],
    duplicated: 2,
  },
  "key-not-enforced": {
    code: "W007",
    kind: "key-not-enforced",
    table: "docs",
    columns: ["slug", "org"],
  },
};

const STAGES: Samples<Problem, ProblemKind> = {
  "unconstrained-variable": { code: "P601", kind: "unconstrained-variable", variable: "d" },
  "missing-predicate": { code: "P601", kind: "missing-predicate" },
  "unknown-predicate": {
    code: "P601",
    kind: "unknown-predicate",
    name: "allowed",
    arity: 3,
    arities: ["2"],
  },
  "empty-type": { code: "P601", kind: "empty-type", variable: "d" },
  "abstract-type": { code: "P601", kind: "abstract-type", type: "Actor" },
  "empty-id": { code: "P601", kind: "empty-id", variable: "d" },
  "invalid-integer": { code: "P601", kind: "invalid-integer", id: "1.5" },
  "invalid-boolean": { code: "P601", kind: "invalid-boolean", id: "yes" },
  "incomplete-value": { code: "P601", kind: "incomplete-value", role: "actor" },
  "empty-resource-type": { code: "P601", kind: "empty-resource-type" },
  "invalid-request": {
    code: "P601",
    kind: "invalid-request",
    path: "query.actor_id",
    reason: "expected string",
  },
  "unknown-dialect": {
    code: "P601",
    kind: "unknown-dialect",
    name: "oracle",
    allowed: "`postgres`, `mysql` or `sqlite`",
  },
  "invalid-context-fact": { code: "P601", kind: "invalid-context-fact", reason: "not an object" },
  "context-fact-nul": { code: "P601", kind: "context-fact-nul", predicate: "is_open" },
  unbounded: { code: "P602", kind: "unbounded", operator: "not", variable: "x", rule: "allow" },
  "unbounded-head": { code: "P602", kind: "unbounded-head", rule: "same", variable: "x" },
  "negation-cycle": { code: "P602", kind: "negation-cycle", predicate: "p" },
  "negation-through-itself": { code: "P602", kind: "negation-through-itself" },
  "unknown-type": { code: "P702", kind: "unknown-type", variable: "org", rule: "allow" },
  "type-needed": { code: "P702", kind: "type-needed", position: 0 },
  "type-combinations": {
    code: "P702",
    kind: "type-combinations",
    predicate: "link",
    combinations: 343,
  },
  nonlinear: { code: "P703", kind: "nonlinear", predicate: "path" },
  "nonlinear-mutual": {
    code: "P703",
    kind: "nonlinear-mutual",
    predicate: "reach",
    members: ["reach", "link"],
  },
  "recursion-arguments": {
    code: "P703",
    kind: "recursion-arguments",
    predicate: "reach",
    mutual: false,
  },
  "recursion-through-any": { code: "P703", kind: "recursion-through-any", predicate: "reach" },
  "call-reads-any": { code: "P703", kind: "call-reads-any", predicate: "member" },
  "unwritable-value": { code: "P703", kind: "unwritable-value", type: "Doc", id: "abc" },
  "dialect-recursive-reads": {
    code: "P703",
    kind: "dialect-recursive-reads",
    dialect: "mysql",
    reads: 9,
    max: 6,
    predicate: "has_role",
    predicateReads: 5,
  },
  "dialect-step-reads-itself": {
    code: "P703",
    kind: "dialect-step-reads-itself",
    dialect: "mysql",
    predicate: "reach",
  },
  "store-recursion-any": { code: "P703", kind: "store-recursion-any", predicate: "reach" },
  "fixpoint-rounds": {
    code: "P712",
    kind: "fixpoint-rounds",
    predicates: ["path"],
    rounds: 64,
  },
  "fixpoint-rows": { code: "P712", kind: "fixpoint-rows", predicates: ["path"], rows: 1000000 },
  "literal-nul": { code: "P713", kind: "literal-nul", what: "string", holder: "PostgreSQL text" },
  "literal-surrogate": { code: "P713", kind: "literal-surrogate", what: "identifier" },
  "empty-identifier": { code: "P713", kind: "empty-identifier" },
  "long-identifier": {
    code: "P713",
    kind: "long-identifier",
    name: "a_very_long_name",
    limit: 63,
    unit: "bytes",
    engine: "PostgreSQL",
  },
  "literal-integer": { code: "P713", kind: "literal-integer", id: "1.5" },
  "literal-boolean": { code: "P713", kind: "literal-boolean", id: "yes" },
  "invalid-sql-type-name": { code: "P713", kind: "invalid-sql-type-name", sqlType: "int;" },
  "fact-nul": { code: "P507", kind: "fact-nul", fact: 'f(User{"a\u0000"})' },
  "fact-arity": { code: "P508", kind: "fact-arity", fact: "f(a, b, c)", limit: 8 },
  "pattern-id-without-type": {
    code: "P509",
    kind: "pattern-id-without-type",
    predicate: "has_role",
    position: 2,
  },
  "invalid-fact": {
    code: "P501",
    kind: "invalid-fact",
    fact: 'nope(User{"ada"})',
    reason: "unknown predicate",
  },
  "invalid-policy": { code: "P201", kind: "invalid-policy", first: "undeclared term", errors: 2 },
  "invalid-data-bindings": {
    code: "P701",
    kind: "invalid-data-bindings",
    first: "duplicate binding",
    errors: 1,
  },
};

/** Fields that choose the wording rather than appear in it. */
const WORDING: Readonly<Record<string, readonly string[]>> = {
  "untyped-column": ["dialect", "family"],
  // SQLite's name for a column without a declared type, which the message explains instead.
  "computed-column": ["columnType"],
};

interface Table {
  readonly name: string;
  readonly samples: Readonly<Record<string, { readonly kind: string }>>;
  /** The message and hint, joined. */
  readonly text: (problem: never) => string;
}

const TABLES: readonly Table[] = [
  { name: "parser", samples: PARSE, text: (p: ParseProblem) => describeParseProblem(p) },
  {
    name: "checker",
    samples: CHECK,
    text: (p: CheckProblem) => {
      const d = checkDiagnostic(p);
      return `${d.message}\n${d.help ?? ""}`;
    },
  },
  {
    name: "bindings",
    samples: BINDINGS,
    text: (p: BindingsProblem) => {
      const d = describeBindingsProblem(p);
      return `${d.message}\n${d.help ?? ""}`;
    },
  },
  { name: "later stages", samples: STAGES, text: (p: Problem) => describeProblem(p) },
];

/** The texts a problem must show: its string fields and the strings of its lists. */
function subjects(problem: Readonly<Record<string, unknown>>): string[] {
  const skip = new Set(["code", "kind", ...(WORDING[problem.kind as string] ?? [])]);
  return Object.entries(problem).flatMap(([field, value]) => {
    if (skip.has(field)) return [];
    if (typeof value === "string") return value === "" ? [] : [value];
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
    if (typeof value === "object" && value !== null) {
      return subjects(value as Record<string, unknown>);
    }
    return [];
  });
}

/** The problem with each string field (and list string) replaced by `rename`'s answer. */
function renamed<T>(problem: T, rename: (text: string, field: string) => string): T {
  const skip = new Set(["code", "kind", "noun", "what", "unit", "section", "dialect", "family"]);
  const walk = (value: unknown, field: string): unknown => {
    if (skip.has(field)) return value;
    if (typeof value === "string") return value === "" ? value : rename(value, field);
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${field}.${i}`));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return walk(problem, "") as T;
}

describe("every problem kind has a message that names its subject", () => {
  for (const table of TABLES) {
    it.each(Object.entries(table.samples))(`${table.name}: %s`, (kind, sample) => {
      expect(sample.kind).toBe(kind);
      const text = table.text(sample as never);
      const [message] = text.split("\n");
      expect(message!.length).toBeGreaterThan(0);
      expect(message).not.toMatch(/\.$/);
      for (const subject of subjects(sample as never)) expect(text).toContain(subject);
    });
  }

  it("names whatever is written in the problem's fields (property)", () => {
    const token = fc.stringMatching(/^[a-z][a-z0-9_]{2,10}$/);
    for (const table of TABLES) {
      for (const sample of Object.values(table.samples)) {
        fc.assert(
          fc.property(token, (word) => {
            let n = 0;
            const problem = renamed(sample, () => `${word}${n++}Z`);
            const text = table.text(problem as never);
            for (const subject of subjects(problem as never)) expect(text).toContain(subject);
            expect(text.split("\n")[0]).not.toContain("undefined");
          }),
          { numRuns: 10 },
        );
      }
    }
  });

  it("warnings are warnings and errors errors, by their code", () => {
    for (const sample of Object.values(CHECK)) {
      const expected = sample.code.startsWith("W") ? "warning" : "error";
      expect(checkDiagnostic(sample).severity).toBe(expected);
    }
    for (const sample of Object.values(BINDINGS)) {
      const expected = sample.code.startsWith("W") ? "warning" : "error";
      expect(bindingsDiagnostic(sample).severity).toBe(expected);
    }
  });
});

describe("checker errors come from the table with their place", () => {
  it("P201: an undeclared term, with code, file:line:col, frame and hint", () => {
    const text = `actor User {}
resource Doc {
  permissions = ["read"];
  roles = ["reader"];
  "read" if "raeder";
}`;
    const result = checkPolicy([{ name: "doc.polar", text }]);
    expect(result.ok).toBe(false);
    const [first] = result.diagnostics;
    expect(first?.code).toBe("P201");
    expect(formatDiagnosticLine(first!, [{ name: "doc.polar", text }])).toBe(
      "doc.polar:5:13: undeclared term `raeder` in `Doc`; declare it as a role, permission or relation",
    );
    expect(formatDiagnostic(first!, [{ name: "doc.polar", text }])).toBe(
      [
        "error[P201]: undeclared term `raeder` in `Doc`; declare it as a role, permission or relation",
        " --> doc.polar:5:13",
        "  |",
        '5 |   "read" if "raeder";',
        "  |             ^^^^^^^^",
        "  = help: did you mean `reader`?",
      ].join("\n"),
    );
  });

  it("P203: a relation written as a variable gets the table's hint", () => {
    const text = `actor User {}
resource Org { roles = ["admin"]; }
resource Doc {
  roles = ["reader"];
  relations = { org: Org };
  "reader" if "admin" on org;
}`;
    const sources = [{ name: "p.polar", text }];
    const [first] = checkPolicy(sources).diagnostics;
    expect(first?.code).toBe("P203");
    expect(formatDiagnostic(first!, sources).split("\n")).toEqual([
      "error[P203]: `org` is not a relation of `Doc`",
      " --> p.polar:6:26",
      "  |",
      '6 |   "reader" if "admin" on org;',
      "  |                          ^^^",
      '  = help: write the relation name in quotes: "org"',
    ]);
  });

  it("a valid policy raises nothing", () => {
    const text = `actor User {}\nresource Doc { permissions = ["read"]; roles = ["reader"]; "read" if "reader"; }`;
    expect(checkPolicy([{ name: "doc.polar", text }]).diagnostics).toEqual([]);
  });

  it("PolicyError is a StageError: the first error's problem, code and frame", () => {
    const text = `actor User {}\nresource Doc {\n  permissions = ["read"];\n  "read" if "viewer";\n  "write" if "read";\n}`;
    const sources = [{ name: "doc.polar", text }];
    let thrown: unknown;
    try {
      checkPolicyOrThrow(sources);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PolicyError);
    expect(thrown).toBeInstanceOf(StageError);
    const error = thrown as PolicyError;
    expect(error.code).toBe("P201");
    expect(error.problem).toEqual({
      code: "P201",
      kind: "invalid-policy",
      first: "undeclared term `viewer` in `Doc`; declare it as a role, permission or relation",
      errors: 2,
    });
    expect(error.format().split("\n").slice(0, 2)).toEqual([
      "error[P201]: undeclared term `viewer` in `Doc`; declare it as a role, permission or relation (2 errors)",
      " --> doc.polar:4:13",
    ]);
  });
});

describe("bindings errors come from the table with their place", () => {
  const program = checked(`actor User {}
resource Doc { permissions = ["read"]; roles = ["reader"]; "read" if "reader"; }`);

  it("W010: an undeclared type in a signature, with code, file:line:col and frame", () => {
    const yaml = `facts:
  has_role(User:_, String:_, Dco:_):
    query: SELECT u, r, d FROM roles
`;
    const result = checkBindings(program, yaml, { fileName: "b.yaml" });
    const errors = result.diagnostics.filter((d) => d.code === "W010");
    expect(errors.map((d) => d.severity)).toEqual(["warning"]);
    expect(formatDiagnosticLine(errors[0]!, [result.source])).toBe(
      "b.yaml:2:30: type `Dco` in binding `has_role(User:_, String:_, Dco:_)` is not declared by the policy; did you mean `Doc`?",
    );
    expect(formatDiagnostic(errors[0]!, [result.source]).split("\n").slice(1)).toEqual([
      " --> b.yaml:2:30",
      "  |",
      "2 |   has_role(User:_, String:_, Dco:_):",
      "  |                              ^^^",
      "  = help: the binding is ignored, as Oso ignores bindings no rule reads",
    ]);
  });

  it("P706: a signature problem from the reader, at its key", () => {
    const yaml = "facts:\n  is_open(Integer:x):\n    query: SELECT id FROM docs\n";
    const result = checkBindings(program, yaml, { fileName: "b.yaml" });
    expect(
      result.diagnostics.map((d) => [d.code, formatDiagnosticLine(d, [result.source])]),
    ).toEqual([
      ["P706", "b.yaml:2:3: invalid Integer constant `x` in fact signature `is_open(Integer:x)`"],
    ]);
  });

  it("valid bindings raise no error", () => {
    const yaml =
      "facts:\n  has_role(User:_, String:_, Doc:_):\n    query: SELECT u, r, d FROM roles\n";
    expect(checkBindings(program, yaml).diagnostics.filter((d) => d.severity === "error")).toEqual(
      [],
    );
  });

  it("DataBindingsError is a StageError (P701) at the first error, listing them all", () => {
    const yaml =
      'facts:\n  "is_open(Doc:_)":\n    query: SELECT 1; SELECT 2\n  "x(":\n    query: SELECT 1\n';
    let thrown: unknown;
    try {
      parseDataBindings(yaml, { fileName: "b.yaml" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DataBindingsError);
    expect(thrown).toBeInstanceOf(StageError);
    const error = thrown as DataBindingsError;
    expect(error.code).toBe("P701");
    expect(error.problem).toMatchObject({ kind: "invalid-data-bindings", errors: 2 });
    expect(error.message).toBe(
      [
        "b.yaml:2:3: error[P701]: query of binding `is_open(Doc:_)` must be one statement; found `;` before its end",
        "b.yaml:4:3: error[P706]: invalid fact signature `x(`",
      ].join("\n"),
    );
    expect(error.format().split("\n").slice(0, 5)).toEqual([
      "error[P701]: query of binding `is_open(Doc:_)` must be one statement; found `;` before its end (2 errors)",
      " --> b.yaml:2:3",
      "  |",
      '2 |   "is_open(Doc:_)":',
      "  |   ^^^^^^^^^^^^^^^^",
    ]);
  });
});

describe("literal refusals are coded", () => {
  it("LiteralError is a StageError with code P713 and its problem", () => {
    let thrown: unknown;
    try {
      quoteIdentifier("x".repeat(64));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LiteralError);
    expect(thrown).toBeInstanceOf(StageError);
    const error = thrown as LiteralError;
    expect(error.code).toBe("P713");
    expect(error.problem).toMatchObject({ kind: "long-identifier", limit: 63, unit: "bytes" });
    expect(error.message).toBe(
      `identifier \`${"x".repeat(64)}\` is longer than 63 bytes, the PostgreSQL limit`,
    );
    expect(quoteIdentifier("x".repeat(63))).toBe(`"${"x".repeat(63)}"`);
  });
});

describe("a value its column cannot hold", () => {
  const program = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(_: User, "read", Doc{"abc"});
has_permission(_: User, "read", Doc{"7"});`);
  const select = (ids: string[] | null, policy = program) =>
    evaluateQueryLocal(policy, {
      query: {
        predicate: ["allow", ["u", "a", "d"]],
        calls: [],
        constraints: {
          u: { type: "User", ids: ["7"] },
          a: { type: "String", ids: ["read"] },
          d: { type: "Doc", ids },
        },
      },
      data_bindings: "facts:\nsql_types:\n  Doc: integer\n",
      mode: { mode: "select", query_vars_to_output_column_names: { d: "doc" } },
    });
  const refused = (run: () => unknown): PlanError => {
    try {
      run();
    } catch (error) {
      if (error instanceof PlanError) return error;
      throw error;
    }
    throw new Error("the call was not refused");
  };

  it("P703: a constant of the policy points at where the policy writes it", () => {
    const error = refused(() => select(null));
    expect(error.problem).toEqual({
      code: "P703",
      kind: "unwritable-value",
      type: "Doc",
      id: "abc",
    });
    expect(error.message).toBe(
      "policy.polar:3:33: cannot write the `Doc` value `abc` in SQL for its column type",
    );
    expect(error.format()).toBe(
      [
        "error[P703]: cannot write the `Doc` value `abc` in SQL for its column type",
        " --> policy.polar:3:33",
        "  |",
        '3 | has_permission(_: User, "read", Doc{"abc"});',
        "  |                                 ^^^^^^^^^^",
      ].join("\n"),
    );
  });

  it("P703: a value of the request has no place in the policy", () => {
    const universal = checked(`actor User {}
resource Doc { permissions = ["read"]; }
has_permission(_: User, "read", _: Doc);
has_permission(_: User, "read", Doc{"xyz"});`);
    const error = refused(() => select(["xyz"], universal));
    expect(error.message).toBe("cannot write the `Doc` value `xyz` in SQL for its column type");
    expect(error.diagnostic.span).toBeUndefined();
  });

  it("a value the column can hold is written", () => {
    expect(select(["7"]).sql).toContain("7");
  });
});
