/**
 * A local statement whose central rows differ from request to request is printed once per key
 * of its free values and filled per request (src/print/free-values.ts). The net: for random
 * stored facts, context facts and questions, on every dialect, the filled text is the text
 * printed afresh (`cacheText: false`), byte for byte, while the templates of earlier requests
 * (other users, other rows) are kept and reused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { actionsQuery, authorizeQuery, type LocalOptions, listQuery } from "../src/api/local.js";
import { authorizeQuestion, localStatement } from "../src/api/questions.js";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { GroundFact, Value } from "../src/core/value.js";
import type { Dialect } from "../src/dialects/dialect.js";
import { DIALECT_NAMES, DIALECTS } from "../src/dialects/registry.js";
import { sqlite } from "../src/dialects/sqlite/index.js";
import { cachedPlan } from "../src/plan/plan.js";
import { factRows, inMemoryCentralFacts } from "../src/plan/resolve/central-facts.js";
import { freeValues, lookupAnswers } from "../src/print/free-values.js";
import { StageError } from "../src/source/stage-error.js";
import { checked } from "./local-support.js";
import { propertyRuns } from "./support/runs.js";

/** Folder roles flow down a tree; an organization's admins own its folders; one constant. */
const program = checked(`actor User {}
resource Org {
  roles = ["member", "admin"];
  permissions = ["read"];
  "member" if "admin";
  "read" if "member";
}
resource Folder {
  roles = ["viewer", "owner"];
  permissions = ["read", "share"];
  relations = { parent: Folder, org: Org };
  role if role on "parent";
  "owner" if "admin" on "org";
  "viewer" if "owner";
  "read" if "viewer";
  "share" if "owner";
}
resource Doc {
  permissions = ["read", "share"];
  relations = { folder: Folder };
  "read" if "read" on "folder";
  "share" if "share" on "folder";
}
has_permission(_: User, "read", d: Doc) if d = Doc{"7"};
has_role(_: User, "viewer", f: Folder) if f = Folder{"acme"};
has_permission(_: User, "share", f: Folder) if has_label(f, label) and label > "m";
declare has_label(Folder, String);`);

/** Folders and documents are the application's; Org ids have no SQL type (compared untyped). */
function bindingsText(folderType: string): string {
  return `facts:
  has_relation(Folder:_, parent, Folder:_):
    query: SELECT id, parent_id FROM folders
  has_relation(Folder:_, org, Org:_):
    query: SELECT id, org_id FROM folders
  has_relation(Doc:_, folder, Folder:_):
    query: SELECT id, folder_id FROM docs
sql_types:
  Folder: ${folderType}
  Doc: integer
`;
}

const BINDINGS = [bindingsText("integer"), bindingsText("text")];

/**
 * Few ids, so that they meet: integers, one spelled as no integer column holds it, the
 * policy's constants, a quote, a backslash, one past 32 bits, a uuid.
 */
const IDS = [
  "1",
  "2",
  "01",
  "2147483648",
  "7",
  "acme",
  "it's",
  "a\\b",
  "550e8400-e29b-41d4-a716-446655440000",
];
const ID = fc.constantFrom(...IDS);
/** Fewer users still: a request meets the rows of another user of an earlier one. */
const USER = fc.constantFrom<string>("1", "2", "it's");
const TYPE = fc.constantFrom("Org", "Folder", "Doc", "User");
const value = (type: string, id: string): Value => ({ type, id });

const roleFact = fc
  .tuple(USER, fc.constantFrom("member", "admin", "viewer", "owner", "guest"), TYPE, ID)
  .map(
    ([user, role, type, id]): GroundFact => ({
      predicate: "has_role",
      args: [value("User", user), value("String", role), value(type, id)],
    }),
  );
const relationFact = fc
  .tuple(
    fc.constantFrom(
      ["Folder", "parent", "Folder"],
      ["Folder", "org", "Org"],
      ["Doc", "folder", "Folder"],
    ),
    ID,
    ID,
  )
  .map(
    ([[from, name, to], a, b]): GroundFact => ({
      predicate: "has_relation",
      args: [value(from!, a), value("String", name!), value(to!, b)],
    }),
  );
/** Labels compared by order: renaming a String would change which rows pass. */
const labelFact = fc.tuple(ID, fc.constantFrom("a", "z", "it's")).map(
  ([folder, label]): GroundFact => ({
    predicate: "has_label",
    args: [value("Folder", folder), value("String", label)],
  }),
);
const fact = fc.oneof(roleFact, roleFact, relationFact, labelFact);

const question = fc.record({
  user: USER,
  action: fc.constantFrom("read", "share"),
  type: fc.constantFrom("Doc", "Folder", "Org"),
  id: ID,
  kind: fc.constantFrom("authorize", "actions", "list"),
  bindings: fc.constantFrom(...BINDINGS),
  context: fc.array(fact, { maxLength: 2 }),
});

type Question = typeof question extends fc.Arbitrary<infer T> ? T : never;

function sqlOf(q: Question, options: LocalOptions): string {
  const actor = { actor_type: "User", actor_id: q.user };
  const context_facts = q.context.map((f) => ({ predicate: f.predicate, args: [...f.args] }));
  switch (q.kind) {
    case "authorize":
      return authorizeQuery(
        program,
        {
          query: {
            ...actor,
            action: q.action,
            resource_type: q.type,
            resource_id: q.id,
            context_facts,
          },
          data_bindings: q.bindings,
        },
        options,
      ).sql;
    case "actions":
      return actionsQuery(
        program,
        {
          query: { ...actor, resource_type: q.type, resource_id: q.id, context_facts },
          data_bindings: q.bindings,
        },
        options,
      ).sql;
    case "list":
      return listQuery(
        program,
        {
          query: { ...actor, action: q.action, resource_type: q.type, context_facts },
          column: "t.id",
          data_bindings: q.bindings,
        },
        options,
      ).sql;
    default: {
      const _never: never = q.kind;
      return _never;
    }
  }
}

/** Facts and questions with every entity id renamed (Strings are kept). */
function renamed(rename: (id: string) => string, stored: GroundFact[], questions: Question[]) {
  const fact = (f: GroundFact): GroundFact => ({
    predicate: f.predicate,
    args: f.args.map((v) => (v.type === "String" ? v : value(v.type, rename(v.id)))),
  });
  const question = (q: Question): Question => ({
    ...q,
    user: rename(q.user),
    id: rename(q.id),
    context: q.context.map(fact),
  });
  return { stored: stored.map(fact), questions: questions.map(question) };
}

describe("a statement filled for its free values", () => {
  it("is the text printed afresh, for random stored facts and questions on every dialect", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 16 }),
        fc.array(question, { minLength: 1, maxLength: 8 }),
        // The same requests with ids swapped: equal keys where the dialect answers alike for
        // the swapped ids, so that a template is filled with ids of other kinds than its own.
        fc.shuffledSubarray(IDS, { minLength: IDS.length }),
        (stored, questions, swapped) => {
          const rename = (id: string) => swapped[IDS.indexOf(id)] ?? id;
          for (const run of [{ stored, questions }, renamed(rename, stored, questions)]) {
            const central = inMemoryCentralFacts(run.stored);
            for (const dialect of DIALECT_NAMES) {
              for (const q of run.questions) {
                const fresh = sqlOf(q, { dialect, central, cacheText: false });
                expect(sqlOf(q, { dialect, central })).toBe(fresh);
              }
            }
          }
        },
      ),
      { numRuns: propertyRuns(100, 1000) },
    );
  });

  it("gives each user its own ids where a list of ids is one array literal", () => {
    // Admin of twenty organizations, compared untyped with a folder's: PostgreSQL writes them
    // as `any('{…}')`, a literal made of free values, which no template holds
    // (src/lower/untyped-ids.ts).
    const roles = (user: string, from: number) =>
      Array.from(
        { length: 20 },
        (_, i): GroundFact => ({
          predicate: "has_role",
          args: [value("User", user), value("String", "admin"), value("Org", String(from + i))],
        }),
      );
    const central = inMemoryCentralFacts([...roles("ada", 100), ...roles("bo", 200)]);
    const ask = (user: string) =>
      sqlOf(
        {
          user,
          action: "read",
          type: "Folder",
          id: "5",
          kind: "authorize",
          bindings: BINDINGS[0]!,
          context: [],
        },
        { dialect: "postgres", central },
      );
    expect(ask("ada")).toContain("'{100,101,");
    expect(ask("bo")).toContain("'{200,201,");
    expect(ask("bo")).not.toContain("100");
  });
});

describe("the key of a request's free values", () => {
  const bindings = parseDataBindings(BINDINGS[0]!);
  const query = (user: string) => ({
    actor_type: "User",
    actor_id: user,
    action: "read",
    resource_type: "Folder",
    resource_id: "9",
    context_facts: [],
  });
  const plan = cachedPlan(program, bindings, authorizeQuestion(program, query("x")).goal);
  const tests = {
    renderable: (v: Value) => DIALECTS.postgres.canWrite(v, bindings.sqlTypes.get(v.type)),
    comparesUntyped: (id: string) => DIALECTS.postgres.comparesUntyped?.(id) ?? false,
  };
  /** The key of a user whose folder roles are these (role, folder id). */
  function keyOf(user: string, roles: readonly (readonly [string, string])[]) {
    const central = inMemoryCentralFacts(
      roles.map(([role, folder]) => ({
        predicate: "has_role",
        args: [value("User", user), value("String", role), value("Folder", folder)],
      })),
    );
    const { params } = authorizeQuestion(program, query(user));
    const answers = lookupAnswers(plan, bindings, {
      params,
      facts: factRows(central, []),
      now: 0n,
    });
    return freeValues(answers!, params, tests)!;
  }

  it("is the same for users whose roles differ only in ids, and names their values", () => {
    const ada = keyOf("ada", [["viewer", "1"]]);
    const bo = keyOf("bo", [["viewer", "2"]]);
    expect(ada.key).toBe(bo.key);
    expect(bo.values).toContainEqual(value("Folder", "2"));
    expect(bo.values).toContainEqual(value("User", "bo"));
  });

  it("differs where the roles, their number or the equalities between ids differ", () => {
    const one = keyOf("ada", [["viewer", "1"]]).key;
    expect(keyOf("ada", [["owner", "1"]]).key).not.toBe(one);
    expect(
      keyOf("ada", [
        ["viewer", "1"],
        ["viewer", "3"],
      ]).key,
    ).not.toBe(one);
    // The resource itself (Folder 9) among the roles is an equality the text depends on.
    expect(keyOf("ada", [["viewer", "9"]]).key).not.toBe(one);
    // The policy's constant Folder{"acme"} is written out, not a slot.
    expect(keyOf("ada", [["viewer", "acme"]]).key).not.toBe(one);
    // An id an integer column cannot hold (it matches nothing).
    expect(keyOf("ada", [["viewer", "x"]]).key).not.toBe(one);
    // A User id (no SQL type) that PostgreSQL compares with the column, not with its text.
    expect(keyOf("7", [["viewer", "1"]]).key).not.toBe(one);
    // Which earlier value a repeated one is.
    const again = keyOf("ada", [
      ["viewer", "1"],
      ["owner", "1"],
    ]).key;
    const resource = keyOf("ada", [
      ["viewer", "1"],
      ["owner", "9"],
    ]).key;
    expect(again).not.toBe(resource);
  });
});

describe("a free value the dialect has no literal for", () => {
  // SQLite with every value let through to its literal (test/literal-spans.test.ts), with
  // bindings of its own: answers of canWrite are kept per bindings and dialect name.
  const lenient: Dialect = { ...sqlite, canWrite: () => true };
  const bindings = parseDataBindings(BINDINGS[1]!);
  const LONE = "\uD800";
  const central = inMemoryCentralFacts(
    [
      ["ada", "o1"],
      ["bo", `o${LONE}`],
    ].map(([user, org]) => ({
      predicate: "has_role",
      args: [value("User", user!), value("String", "admin"), value("Org", org!)],
    })),
  );
  const statement = (user: string, cacheText?: boolean) =>
    localStatement(
      program,
      bindings,
      authorizeQuestion(program, {
        actor_type: "User",
        actor_id: user,
        action: "read",
        resource_type: "Folder",
        resource_id: "3",
        context_facts: [],
      }),
      { dialect: lenient, central, cacheText },
    );
  const refusal = (run: () => unknown): StageError => {
    try {
      run();
    } catch (error) {
      if (error instanceof StageError) return error;
      throw error;
    }
    throw new Error("the call was not refused");
  };

  it("is refused as a value of the request when it fills a kept template", () => {
    expect(statement("ada").sql).toContain("'o1'");
    const filled = refusal(() => statement("bo"));
    expect(filled.problem).toEqual({
      code: "P713",
      kind: "literal-surrogate",
      what: "string",
      from: "request",
    });
    expect(filled.problem).toEqual(refusal(() => statement("bo", false)).problem);
  });
});
