/**
 * Bindings an ORM generated (test/fixtures/generated): one binding per model and attribute,
 * more than the policy declares or reads. What the policy cannot use is a warning and is
 * ignored: the compiler reads the same bindings as for a file without those entries, the SQL
 * is the same text, every surface answers (library, HTTP, `sql`, `bindings check`), and only
 * `bindings check --strict` fails on the warnings.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { actionsQuery, authorizeQuery, listQuery } from "../src/api/local.js";
import { checkBindings } from "../src/bindings/check.js";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { DataBindings } from "../src/bindings/types.js";
import { main } from "../src/cli/main.js";
import type { GroundFact } from "../src/core/value.js";
import { DIALECT_NAMES } from "../src/dialects/registry.js";
import { actions, authorize, list } from "../src/evaluate/index.js";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { createService } from "../src/service/service.js";
import { checked } from "./local-support.js";
import { describeEngines } from "./support/databases.js";
import { propertyRuns } from "./support/runs.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

const DIR = "test/fixtures/generated";
const POLICY = await readFile(join(DIR, "policy.polar"), "utf8");
const GENERATED = await readFile(join(DIR, "bindings.yaml"), "utf8");
const SCHEMA = await readFile(join(DIR, "schema.sql"), "utf8");
const CENTRAL: GroundFact[] = JSON.parse(await readFile(join(DIR, "facts.json"), "utf8"));
const program = checked(POLICY);

/** The generated file without the entries the policy cannot use, written by hand. */
const USED = `facts:
  has_relation(Document:_, organization, Organization:_):
    query: "SELECT document.id, document.organization_id \\nFROM document"
  has_relation(DocumentChunk:_, document, Document:_):
    query: "SELECT document_chunk.id, document_chunk.document_id \\nFROM document_chunk"
  has_role(User:_, String:_, Document:_):
    query: "SELECT user_assignment.user_id, user_assignment.role, user_assignment.document_id \\nFROM user_assignment"
  has_status(Document:_, String:_):
    query: "SELECT document.id, document.status \\nFROM document"
  is_public(Document:_):
    query: "SELECT document.id \\nFROM document \\nWHERE document.is_public = true"
sql_types:
  Document: INTEGER
  DocumentChunk: INTEGER
  Organization: INTEGER
`;

const USERS = ["alice", "bob", "carol", "dave", "erin"];
const DOCUMENTS = ["10", "11", "12", "13"];
const ACTIONS = ["read", "write"];

/** What the compiler reads, without the source lines (which differ between the two files). */
function readable(bindings: DataBindings | null) {
  return {
    bindings: bindings?.bindings.map(({ line: _line, ...binding }) => binding),
    sqlTypes: bindings && [...bindings.sqlTypes],
  };
}

describe("generated bindings against a policy that reads fewer of them", () => {
  it("warn about what the policy cannot use and leave it out of what the compiler reads", () => {
    // The central facts give the roles on organizations, which no binding gives.
    const central = inMemoryCentralFacts(CENTRAL);
    const result = checkBindings(program, GENERATED, { fileName: "bindings.yaml", central });
    expect(result.ok).toBe(true);
    const lines = GENERATED.split("\n");
    const where = result.diagnostics.map((d) => {
      const line = GENERATED.slice(0, d.span!.start).split("\n").length;
      return `${d.severity} ${d.code} ${lines[line - 1]!.trim()}`;
    });
    expect(where).toEqual([
      "warning W010 has_relation(UserAssignment:_, document, Document:_):",
      "warning W010 has_relation(UserAssignment:_, user, User:_):",
      "warning W004 has_title(Document:_, String:_):",
      "warning W004 has_title(DocumentChunk:_, String:_):",
      "warning W004 is_archived(Organization:_):",
      "warning W004 is_archived(Organization:_, Boolean:_):",
      "warning W004 is_public(Document:_, Boolean:_):",
      "warning W006 UserAssignment: INTEGER",
    ]);
    expect(readable(result.bindings)).toEqual(readable(parseDataBindings(USED)));
    // Without the policy nothing can be judged unused: every binding is read.
    const alone = checkBindings(null, GENERATED);
    expect(alone.ignored.size).toBe(0);
    expect(alone.bindings?.bindings).toHaveLength(12);
  });

  it("give the same SQL text as the file without them, for every question and dialect", () => {
    const central = inMemoryCentralFacts(CENTRAL);
    for (const dialect of DIALECT_NAMES) {
      const options = { dialect, central, cacheText: false };
      const same = (ask: (bindings: string) => { sql: string }) =>
        expect(ask(GENERATED).sql).toBe(ask(USED).sql);
      for (const actor_id of USERS) {
        const actor = { actor_type: "User", actor_id };
        for (const action of ACTIONS) {
          const query = { ...actor, action, resource_type: "Document" };
          same((b) => listQuery(program, { query, column: "d.id", data_bindings: b }, options));
          same((b) =>
            authorizeQuery(
              program,
              { query: { ...query, resource_id: "10" }, data_bindings: b },
              options,
            ),
          );
        }
        const resource = { resource_type: "DocumentChunk", resource_id: "101" };
        same((b) =>
          actionsQuery(program, { query: { ...actor, ...resource }, data_bindings: b }, options),
        );
      }
    }
  });

  it("any binding the policy cannot use changes no SQL (property)", () => {
    // Entries that name a type the policy does not declare, or a fact no rule reads.
    const unusable = fc.oneof(
      fc
        .record({
          predicate: fc.constantFrom("has_relation", "has_role", "is_public", "has_status"),
          types: fc.array(fc.constantFrom("UserAssignment", "Widget", "Document", "User"), {
            minLength: 1,
            maxLength: 3,
          }),
        })
        .filter(({ types }) => types.some((t) => t === "UserAssignment" || t === "Widget")),
      fc.record({
        predicate: fc.constantFrom("has_title", "is_archived", "owned_by", "has_status_code"),
        types: fc.array(fc.constantFrom("Document", "Organization", "User"), {
          minLength: 1,
          maxLength: 3,
        }),
      }),
    );
    const central = inMemoryCentralFacts(CENTRAL);
    fc.assert(
      fc.property(
        fc.uniqueArray(unusable, { selector: (e) => JSON.stringify(e), maxLength: 6 }),
        fc.constantFrom(...USERS),
        fc.constantFrom(...DOCUMENTS),
        fc.constantFrom(...DIALECT_NAMES),
        (extra, actor_id, resource_id, dialect) => {
          const entries = extra.map(({ predicate, types }) => {
            const signature = `${predicate}(${types.map((t) => `${t}:_`).join(", ")})`;
            // Names the compiler generates: were the binding read, they would change the SQL.
            const columns = types.map((_, i) => `polar_c${i}`).join(", ");
            return `  "${signature}":\n    query: SELECT ${columns} FROM polar_c9 AS f0\n`;
          });
          const yaml = USED.replace("facts:\n", `facts:\n${entries.join("")}`).concat(
            "  Widget: uuid\n",
          );
          const query = {
            actor_type: "User",
            actor_id,
            action: "read",
            resource_type: "Document",
            resource_id,
          };
          const options = { dialect, central, cacheText: false };
          const sql = (b: string) =>
            authorizeQuery(program, { query, data_bindings: b }, options).sql;
          expect(sql(yaml)).toBe(sql(USED));
          const checkedExtra = checkBindings(program, yaml);
          expect(checkedExtra.ignored.size).toBe(extra.length);
        },
      ),
      { numRuns: propertyRuns(40, 400) },
    );
  });

  it("still refuse a binding that cannot run: a wrong column count is an error (400)", () => {
    const broken = GENERATED.replace(
      "SELECT document.id, document.status",
      "SELECT document.id, document.status, document.title",
    );
    const result = checkBindings(program, broken);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toEqual([
      "P708",
    ]);
  });
});

describeEngines("generated bindings on $name", (engine) => {
  const localFacts: GroundFact[] = [];
  beforeAll(async () => {
    const db = await engine.db();
    await db.exec(SCHEMA);
    // The facts the used bindings give, read from the tables, for the reference evaluator.
    for (const binding of parseDataBindings(USED).bindings) {
      for (const row of await db.query(binding.query)) {
        const columns = Object.values(row).map(String);
        const args = binding.slots.map((slot) =>
          slot.kind === "constant"
            ? { type: slot.type, id: slot.value }
            : { type: slot.type, id: columns.shift()! },
        );
        localFacts.push({ predicate: binding.predicate, args });
      }
    }
  });

  it("answer every question as the reference evaluator does", async () => {
    const db = await engine.db();
    const facts = [...CENTRAL, ...localFacts];
    const options = { central: inMemoryCentralFacts(CENTRAL) };
    let allowedSome = 0;
    for (const id of USERS) {
      const actor = { type: "User", id };
      for (const action of ACTIONS) {
        const query = { actor_type: "User", actor_id: id, action, resource_type: "Document" };
        for (const resource_id of DOCUMENTS) {
          const body = { query: { ...query, resource_id }, data_bindings: GENERATED };
          const [row] = await db.query<{ allowed: boolean }>(
            authorizeQuery(program, body, options).sql,
          );
          const expected = authorize(program, facts, actor, action, {
            type: "Document",
            id: resource_id,
          });
          expect(row!.allowed, `${id} ${action} ${resource_id}`).toBe(expected);
          if (expected) allowedSome++;
        }
        const filter = listQuery(
          program,
          { query, column: "d.id", data_bindings: GENERATED },
          options,
        ).sql;
        const rows = await db.query<{ id: number }>(
          `SELECT d.id FROM document AS d WHERE ${filter} ORDER BY d.id`,
        );
        const listed = list(program, facts, actor, action, "Document").sort();
        expect(rows.map((r) => String(r.id))).toEqual(listed);
      }
      const chunk = { resource_type: "DocumentChunk", resource_id: "101" };
      const body = {
        query: { actor_type: "User", actor_id: id, ...chunk },
        data_bindings: GENERATED,
      };
      const rows = await db.query<{ actions: string }>(actionsQuery(program, body, options).sql);
      const expected = actions(program, facts, actor, { type: "DocumentChunk", id: "101" });
      expect(rows.map((r) => r.actions).sort()).toEqual([...expected].sort());
    }
    // The questions are not all denied: the bindings are read.
    expect(allowedSome).toBeGreaterThan(3);
  });
});

describe("generated bindings on every surface", () => {
  const question = {
    actor_type: "User",
    actor_id: "carol",
    action: "read",
    resource_type: "Document",
    resource_id: "11",
  };

  it("HTTP: the local endpoints answer 200; a binding that cannot run is a 400", async () => {
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
      const answered = await post("/api/authorize_query", {
        query: question,
        data_bindings: GENERATED,
      });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { sql: string }).sql).toContain("user_assignment");
      const listed = await post("/api/list_query", {
        query: { ...question, resource_id: undefined },
        column: "document.id",
        data_bindings: GENERATED,
      });
      expect(listed.status).toBe(200);
      const broken = GENERATED.replace("SELECT document.id, document.status", "SELECT document.id");
      const refused = await post("/api/authorize_query", {
        query: question,
        data_bindings: broken,
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toContain("error[P708]");
    } finally {
      await service.close();
    }
  });

  async function run(args: readonly string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      isTTY: false,
    };
    const code = await main(args, io);
    return { code, out: out.join(""), err: err.join("") };
  }

  it("CLI: warnings change no exit status; `bindings check --strict` fails on them", async () => {
    const dir = await mkdtemp(join(tmpdir(), "polar-sql-generated-"));
    const policy = join(dir, "policy.polar");
    const bindings = join(dir, "bindings.yaml");
    await writeFile(policy, POLICY);
    await writeFile(bindings, GENERATED);
    const sql = await run([
      ...["sql", "authorize", "--policy", policy, "--bindings", bindings],
      ...["--actor", "User:carol", "--action", "read", "--resource", "Document:11"],
    ]);
    expect(sql.code).toBe(0);
    expect(sql.out).toContain("select exists");
    expect(sql.err).toContain("warning[W010]");
    expect(sql.err).toContain("warning[W004]");
    const facts = join(DIR, "facts.json");
    const check = await run([
      ...["bindings", "check", "--policy", policy, "--bindings", bindings, "--facts", facts],
    ]);
    expect(check.code).toBe(0);
    expect(check.out).toBe(`ok: \`${bindings}\` checked, 8 warnings\n`);
    const strict = await run([
      ...["bindings", "check", "--strict", "--policy", policy, "--bindings", bindings],
      ...["--facts", facts],
    ]);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain("8 warnings (--strict)");
    const json = await run([
      ...["bindings", "check", "--json", "--policy", policy, "--bindings", bindings],
      ...["--facts", facts],
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toHaveLength(8);
    await writeFile(bindings, GENERATED.replace("document.id, document.status", "document.id"));
    const broken = await run(["bindings", "check", "--policy", policy, "--bindings", bindings]);
    expect(broken.code).toBe(1);
    const refused = await run([
      ...["sql", "authorize", "--policy", policy, "--bindings", bindings],
      ...["--actor", "User:carol", "--action", "read", "--resource", "Document:11"],
    ]);
    expect(refused.code).toBe(1);
  });
});
