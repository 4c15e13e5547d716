/**
 * Static checks of data bindings (issue 17): each mistake is a diagnostic with its code, at
 * its line and column in the bindings file, with a code frame; errors block the local
 * endpoints (HTTP 400 naming `data_bindings:LINE:COLUMN` and the code), warnings do not; valid
 * bindings read exactly as before; no text makes the checker throw.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { authorizeQuery, listQuery } from "../src/api/local.js";
import { checkBindings } from "../src/bindings/check.js";
import { spanInScalar } from "../src/bindings/locate.js";
import { DataBindingsError, parseDataBindings } from "../src/bindings/parse.js";
import { selectListWidth } from "../src/bindings/query.js";
import { signatureParts } from "../src/bindings/signature-parts.js";
import { main } from "../src/cli/main.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { createService } from "../src/service/service.js";
import type { Diagnostic } from "../src/source/diagnostic.js";
import { formatDiagnostic } from "../src/source/format.js";
import { positionOf } from "../src/source/source.js";
import { closestName as suggest } from "../src/source/suggest.js";
import { checked } from "./local-support.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const LONG = process.env.POLAR_SQL_LONG === "1";

const POLICY = `actor User {}
resource Organization {
  roles = ["member", "owner"];
  permissions = ["read"];
  "member" if "owner";
  "read" if "member";
}
resource Repository {
  roles = ["reader"];
  permissions = ["read", "push"];
  relations = { organization: Organization };
  "reader" if "member" on "organization";
  "read" if "reader" or is_public(resource, true);
  "push" if "owner" on "organization";
}
`;
const program = checked(POLICY);

const GOOD = `facts:
  "has_relation(Repository:_, organization, Organization:_)":
    query: SELECT id, org_id FROM repositories
  "is_public(Repository:_, Boolean:_)":
    query: SELECT id, is_public FROM repositories
  "has_role(User:_, String:_, Organization:_)":
    query: SELECT user_id, role, org_id FROM memberships
sql_types:
  Repository: integer
keys:
  repositories: id
`;

/** `file:line:col` and the code of each diagnostic, in order. */
function located(yaml: string, diagnostics: readonly Diagnostic[]): string[] {
  const source = { name: "bindings.yaml", text: yaml };
  return diagnostics.map((d) => {
    const { line, column } = positionOf(source, d.span!.start);
    return `${d.code} ${d.span!.file}:${line}:${column} ${yaml.slice(d.span!.start, d.span!.end)}`;
  });
}

function check(yaml: string, options = {}) {
  return checkBindings(program, yaml, { fileName: "bindings.yaml", ...options });
}

describe("valid bindings", () => {
  it("pass without diagnostics and read exactly as parseDataBindings reads them", () => {
    const result = check(GOOD);
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.bindings).toEqual(parseDataBindings(GOOD, { fileName: "bindings.yaml" }));
  });
});

describe("each mistake at its line, with a code frame", () => {
  it("invalid YAML at the parser's position", () => {
    const yaml = "facts:\n  a: b: c\n";
    const result = check(yaml);
    expect(result.ok).toBe(false);
    expect(located(yaml, result.diagnostics)).toEqual(["P704 bindings.yaml:2:6 b"]);
    expect(formatDiagnostic(result.diagnostics[0]!, [result.source])).toContain(
      "--> bindings.yaml:2:6",
    );
  });

  it("unknown top-level keys and signatures that do not parse", () => {
    const yaml = `fact:\n  x: 1\nfacts:\n  "has_role(User:_":\n    query: SELECT 1\n`;
    expect(located(yaml, check(yaml).diagnostics)).toEqual([
      "P705 bindings.yaml:1:1 fact",
      'P706 bindings.yaml:4:3 "has_role(User:_"',
    ]);
  });

  it("a type the policy does not declare, underlined inside the signature, with a suggestion", () => {
    const yaml = `facts:\n  has_relation(Repository:_, organization, Organisation:_):\n    query: SELECT id, org_id FROM repositories\n`;
    const result = check(yaml);
    // A warning: the binding is left out of what the compiler reads.
    expect(result.ok).toBe(true);
    expect(result.bindings?.bindings).toEqual([]);
    expect([...result.ignored]).toEqual([0]);
    const undeclared = result.diagnostics.filter((d) => d.code === "W010");
    expect(located(yaml, undeclared)).toEqual(["W010 bindings.yaml:2:44 Organisation"]);
    expect(undeclared[0]!.message).toBe(
      "type `Organisation` in binding `has_relation(Repository:_, String:organization, Organisation:_)` is not declared by the policy; did you mean `Organization`?",
    );
    expect(formatDiagnostic(undeclared[0]!, [result.source])).toBe(
      [
        "warning[W010]: type `Organisation` in binding `has_relation(Repository:_, String:organization, Organisation:_)` is not declared by the policy; did you mean `Organization`?",
        " --> bindings.yaml:2:44",
        "  |",
        "2 |   has_relation(Repository:_, organization, Organisation:_):",
        "  |                                            ^^^^^^^^^^^^",
        "  = help: the binding is ignored, as Oso ignores bindings no rule reads",
      ].join("\n"),
    );
  });

  it("a SELECT list that does not match the signature's `_` slots, in any scalar style", () => {
    const yaml = `facts:
  "is_public(Repository:_, Boolean:_)":
    query: SELECT id FROM repositories
  "has_relation(Repository:_, organization, Organization:_)":
    query: |
      SELECT id,
             org_id, name
      FROM repositories
  "has_role(User:_, String:_, Organization:_)":
    query: "SELECT user_id, org_id FROM memberships"
`;
    const result = check(yaml);
    expect(result.ok).toBe(false);
    expect(located(yaml, result.diagnostics)).toEqual([
      "P708 bindings.yaml:3:19 id",
      "P708 bindings.yaml:6:14 id,\n             org_id, name",
      "P708 bindings.yaml:10:20 user_id, org_id",
    ]);
    expect(result.diagnostics[0]!.message).toBe(
      "query of binding `is_public(Repository:_, Boolean:_)` returns 1 column, but its signature has 2 `_` slots",
    );
  });

  it("leaves lists it cannot count (`*`, WITH) to the database", () => {
    const yaml = `facts:\n  "is_public(Repository:_, Boolean:_)":\n    query: SELECT * FROM repositories\n  "has_relation(Repository:_, organization, Organization:_)":\n    query: WITH r AS (SELECT 1) SELECT id FROM r\n`;
    expect(check(yaml).diagnostics.filter((d) => d.code === "P708")).toEqual([]);
  });

  it("a relation, role or attribute no rule reads: a warning with a did-you-mean", () => {
    const yaml = `facts:
  "has_relation(Repository:_, organisation, Organization:_)":
    query: SELECT id, org_id FROM repositories
  "is_publik(Repository:_, Boolean:_)":
    query: SELECT id, is_public FROM repositories
  "has_role(User:_, ownr, Organization:_)":
    query: SELECT user_id, org_id FROM owners
  "is_public(Repository:_)":
    query: SELECT id FROM repositories WHERE is_public
`;
    const result = check(yaml);
    expect(result.ok).toBe(true);
    const warnings = result.diagnostics.filter((d) => d.code === "W004");
    expect(located(yaml, warnings)).toEqual([
      "W004 bindings.yaml:2:31 organisation",
      "W004 bindings.yaml:4:4 is_publik",
      "W004 bindings.yaml:6:21 ownr",
      'W004 bindings.yaml:8:3 "is_public(Repository:_)"',
    ]);
    expect(warnings.map((d) => d.message)).toEqual([
      "no rule reads relation `organisation` of binding `has_relation(Repository:_, String:organisation, Organization:_)`; did you mean `organization`?",
      "no rule of the policy reads `is_publik`; did you mean `is_public`?",
      "no rule reads role `ownr` of binding `has_role(User:_, String:ownr, Organization:_)`; did you mean `owner`?",
      "rules read `is_public` with 2 arguments, but binding `is_public(Repository:_)` has 1",
    ]);
  });

  it("a fact the policy reads that no binding and no central fact produces: a warning naming it", () => {
    const yaml = `facts:
  "has_relation(Repository:_, organization, Organization:_)":
    query: SELECT id, org_id FROM repositories
`;
    const result = check(yaml);
    const missing = result.diagnostics.filter((d) => d.code === "W005");
    expect(missing.map((d) => d.message)).toEqual([
      "no binding produces `has_role(Actor:_, String:owner, Organization:_)`, which the policy reads; unless a central fact does, rules that need it never hold",
      "no binding produces `is_public(Repository:_, Boolean:true)`, which the policy reads; unless a central fact does, rules that need it never hold",
    ]);
    expect(located(yaml, missing)).toEqual([
      "W005 bindings.yaml:1:1 facts",
      "W005 bindings.yaml:1:1 facts",
    ]);
    expect(missing[0]!.help).toBe("read by the rule at policy.polar:5:15");
    // Central facts that produce one of them silence its warning.
    const central = inMemoryCentralFacts([
      {
        predicate: "has_role",
        args: [
          { type: "User", id: "ann" },
          { type: "String", id: "owner" },
          { type: "Organization", id: "acme" },
        ],
      },
    ]);
    expect(check(yaml, { central }).diagnostics.map((d) => d.message)).toEqual([
      "neither a binding nor a central fact produces `is_public(Repository:_, Boolean:true)`, which the policy reads",
    ]);
  });

  it("`sql_types` and `keys` entries naming unknown types or tables", () => {
    const yaml = `${GOOD.replace("Repository: integer", "Repository: integer\n  Repo: integer")}  repos: id\n`;
    const result = check(yaml);
    expect(result.ok).toBe(true);
    expect(located(yaml, result.diagnostics)).toEqual([
      "W006 bindings.yaml:10:3 Repo",
      "W006 bindings.yaml:13:3 repos",
    ]);
    expect(result.diagnostics[0]!.message).toBe(
      "`sql_types` names type `Repo`, which the policy does not declare; did you mean `Repository`?",
    );
  });
});

describe("the local endpoints", () => {
  const body = (yaml: string) => ({
    query: {
      actor_type: "User",
      actor_id: "ann",
      action: "read",
      resource_type: "Repository",
      resource_id: "1",
    },
    data_bindings: yaml,
  });

  it("reject errors with `data_bindings:LINE:COLUMN` and the code in the message", () => {
    const yaml = GOOD.replace("SELECT id, is_public FROM", "SELECT id FROM");
    expect(() => authorizeQuery(program, body(yaml))).toThrow(DataBindingsError);
    expect(() => authorizeQuery(program, body(yaml))).toThrow(
      "data_bindings:5:19: error[P708]: query of binding `is_public(Repository:_, Boolean:_)` returns 1 column, but its signature has 2 `_` slots",
    );
    const badQuery = GOOD.replace("SELECT id, org_id FROM", "SELECT id, org_id, 1 FROM");
    expect(() => listQuery(program, { ...body(badQuery), column: "r.id" })).toThrow(
      /^data_bindings:\d+:\d+: error\[P708\]/,
    );
  });

  it("answer as before when there are only warnings", () => {
    const yaml = GOOD.replace("organization, Organization", "organisation, Organization");
    expect(check(yaml).ok).toBe(true);
    expect(authorizeQuery(program, body(yaml)).sql).toContain("from repositories");
    expect(authorizeQuery(program, body(GOOD)).sql).not.toBe(
      authorizeQuery(program, body(yaml)).sql,
    );
  });
});

describe("over HTTP", () => {
  it("a 400 whose message carries `data_bindings:LINE:COLUMN` and the code; warnings pass", async () => {
    const service = await createService({ pool: sharedWorkerPool() });
    try {
      const app = createApp({ service, apiKeys: ["k"], logger: silentLogger });
      const post = (path: string, body: unknown) =>
        app.request(path, {
          method: "POST",
          headers: { Authorization: "Bearer k", "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
      expect((await post("/api/policy", { src: POLICY, filename: "policy.polar" })).status).toBe(
        200,
      );
      const question = {
        actor_type: "User",
        actor_id: "ann",
        action: "read",
        resource_type: "Repository",
        resource_id: "1",
      };
      const bad = GOOD.replace("SELECT id, is_public FROM", "SELECT id FROM");
      const rejected = await post("/api/authorize_query", { query: question, data_bindings: bad });
      expect(rejected.status).toBe(400);
      expect(((await rejected.json()) as { message: string }).message).toBe(
        "data_bindings:5:19: error[P708]: query of binding `is_public(Repository:_, Boolean:_)` returns 1 column, but its signature has 2 `_` slots",
      );
      const warned = GOOD.replace("organization, Organization", "organisation, Organization");
      const answered = await post("/api/authorize_query", {
        query: question,
        data_bindings: warned,
      });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { sql: string }).sql).toContain("from repositories");
    } finally {
      await service.close();
    }
  });
});

describe("the sql command", () => {
  it("prints binding diagnostics with code frames and the file name, and exits 1 on errors", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-bindings-"));
    const policy = join(dir, "policy.polar");
    const bindings = join(dir, "bindings.yaml");
    await writeFile(policy, POLICY);
    await writeFile(bindings, GOOD.replace("SELECT id, is_public FROM", "SELECT id FROM"));
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      isTTY: false,
    };
    const args = ["sql", "authorize", "--policy", policy, "--bindings", bindings];
    const code = await main(
      [...args, "--actor", "User:ann", "--action", "read", "--resource", "Repository:1"],
      io,
    );
    expect(code).toBe(1);
    expect(out).toEqual([]);
    const text = err.join("");
    expect(text).toContain(`error[P708]: query of binding`);
    expect(text).toContain(` --> ${bindings}:5:19`);
    expect(text).toContain("5 |     query: SELECT id FROM repositories\n  |                   ^^");
    expect(text).toContain("error: the data bindings have 1 error");
  });
});

describe("helpers", () => {
  it("count plain select lists and find their items", () => {
    expect(selectListWidth("SELECT id, org_id FROM repos")).toEqual({
      columns: 2,
      items: [
        [7, 9],
        [11, 17],
      ],
      start: 7,
      end: 17,
    });
    expect(selectListWidth("SELECT DISTINCT ON (a) a, f(b, c), ARRAY[1, 2] FROM t")?.columns).toBe(
      3,
    );
    expect(selectListWidth("SELECT 1")?.columns).toBe(1);
    expect(selectListWidth("SELECT a AS \"from\", 'x, y' FROM t")?.columns).toBe(2);
    expect(selectListWidth("VALUES (1, 'a'), (2, 'b')")?.columns).toBe(2);
    expect(selectListWidth("SELECT t.* FROM t")).toBeNull();
    expect(selectListWidth("WITH x AS (SELECT 1) SELECT * FROM x")).toBeNull();
    expect(selectListWidth("(SELECT 1)")).toBeNull();
  });

  it("suggest close names only", () => {
    expect(suggest("organisation", ["organization", "owner"])).toBe("organization");
    expect(suggest("Repo", ["Repository", "User"])).toBe("Repository");
    expect(suggest("user", ["User"])).toBe("User");
    expect(suggest("xyz", ["organization"])).toBeNull();
  });

  it("place parts of scalars and signatures in the source", () => {
    const text = `k: "a \\" b c"\n`;
    const scalar = { file: "f", start: 3, end: 13 };
    const span = spanInScalar({ name: "f", text }, scalar, 'a " b c', 4, 5);
    expect(text.slice(span.start, span.end)).toBe("b");
    expect(signatureParts(' f ( User : _ , "x, y" ) ')).toEqual({
      predicate: [1, 2],
      args: [
        { type: [5, 9], value: [12, 13] },
        { type: null, value: [16, 22] },
      ],
    });
  });
});

describe("any text", () => {
  const yamlish = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 200 }),
    fc.anything({ maxDepth: 3 }).map((value) => {
      try {
        return String(stringify(value) ?? "");
      } catch {
        return "";
      }
    }),
    fc
      .record({
        facts: fc.dictionary(
          fc.oneof(
            fc.constantFrom(
              "has_role(User:_, String:_, Organization:_)",
              "is_public(Repository:_)",
            ),
            fc.string(),
          ),
          fc.record({ query: fc.oneof(fc.constant("SELECT a, b FROM t"), fc.string()) }),
        ),
        sql_types: fc.dictionary(fc.string(), fc.string()),
        keys: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()))),
      })
      .map((doc) => stringify(doc)),
  );
  const mutated = fc
    .tuple(yamlish, fc.nat(), fc.string({ maxLength: 5 }))
    .map(
      ([text, at, insert]) =>
        text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)),
    );

  function usableAsParsed(text: string, ignored: ReadonlySet<number>) {
    const parsed = parseDataBindings(text, { fileName: "b.yaml" });
    return {
      ...parsed,
      bindings: parsed.bindings.filter((_, index) => !ignored.has(index)),
      sqlTypes: new Map([...parsed.sqlTypes].filter(([type]) => program.types.has(type))),
    };
  }

  it("drops sql_types of undeclared types and keeps the rest as parsed (CI seed -831931567)", () => {
    const text = "facts: {}\nsql_types:\n  A: A\n  Repository: bigint\nkeys: {}\n";
    const result = checkBindings(program, text, { fileName: "b.yaml" });
    expect(result.ok).toBe(true);
    expect([...result.bindings!.sqlTypes]).toEqual([["Repository", "bigint"]]);
    expect(result.diagnostics.map((d) => d.message).join()).toMatch(/\bA\b/);
    expect(parseDataBindings(text).sqlTypes.get("A")).toBe("a");
  });

  it("never makes the checker throw; every diagnostic lies inside the text and formats", () => {
    fc.assert(
      fc.property(fc.oneof(yamlish, mutated), (text) => {
        const result = checkBindings(program, text, { fileName: "b.yaml" });
        expect(result.ok).toBe(!result.diagnostics.some((d) => d.severity === "error"));
        for (const diagnostic of result.diagnostics) {
          expect(diagnostic.span!.start).toBeGreaterThanOrEqual(0);
          expect(diagnostic.span!.end).toBeLessThanOrEqual(text.length);
          expect(diagnostic.span!.start).toBeLessThanOrEqual(diagnostic.span!.end);
          formatDiagnostic(diagnostic, [result.source, ...program.sources]);
        }
        // What the checker accepts, the parser reads the same way, less what the checker
        // set aside: bindings it ignored and sql_types of types the policy does not declare.
        if (result.ok) expect(result.bindings).toEqual(usableAsParsed(text, result.ignored));
      }),
      { numRuns: LONG ? 5000 : 300 },
    );
  });
});
