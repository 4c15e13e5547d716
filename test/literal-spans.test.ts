/**
 * P713 located: a constant of the policy that the dialect has no literal for points at the
 * policy text (src/print/value-refusal.ts); a value of the request has no place in the policy
 * and its message says where it came from. The shipped dialects' `canWrite` keeps such values
 * out of the SQL (a comparison with one is simply false), so these tests use a dialect whose
 * `canWrite` lets every value through to its `literal`.
 */
import { describe, expect, it } from "vitest";
import { authorizeQuestion, localStatement } from "../src/api/questions.js";
import { parseDataBindings } from "../src/bindings/parse.js";
import type { Dialect } from "../src/dialects/dialect.js";
import { sqlite } from "../src/dialects/sqlite/index.js";
import { StageError } from "../src/source/stage-error.js";
import { checked } from "./local-support.js";

const lenient: Dialect = { ...sqlite, canWrite: () => true };

const BINDINGS = `facts:
  has_tag(Doc:_, String:_):
    query: SELECT doc, tag FROM tags
`;

// Answers of canWrite are cached per bindings and dialect name, and the lenient dialect keeps
// SQLite's name: each dialect reads its own bindings.
const bindingsOf = new Map<Dialect, ReturnType<typeof parseDataBindings>>();
function bindingsFor(dialect: Dialect) {
  let bindings = bindingsOf.get(dialect);
  if (!bindings) {
    bindings = parseDataBindings(BINDINGS);
    bindingsOf.set(dialect, bindings);
  }
  return bindings;
}

function policy(tag: string): string {
  return `actor User {}
resource Doc { permissions = ["read"]; }
has_permission(_: User, "read", d: Doc) if
  has_tag(d, "${tag}");`;
}

function statement(tag: string, resource: string, dialect: Dialect, cacheText?: boolean) {
  const program = checked(policy(tag));
  const question = authorizeQuestion(program, {
    actor_type: "User",
    actor_id: "ada",
    action: "read",
    resource_type: "Doc",
    resource_id: resource,
    context_facts: [],
  });
  return localStatement(program, bindingsFor(dialect), question, { dialect, cacheText });
}

function refusal(run: () => unknown): StageError {
  try {
    run();
  } catch (error) {
    if (error instanceof StageError) return error;
    throw error;
  }
  throw new Error("the call was not refused");
}

/** A lone high surrogate: JavaScript text holds it, no SQLite literal does. */
const LONE = "\uD800";

describe("P713 for a constant of the policy", () => {
  for (const cacheText of [true, false]) {
    it(`points at the constant where the policy writes it (${cacheText ? "template" : "printed afresh"})`, () => {
      const error = refusal(() => statement(`x${LONE}`, "d1", lenient, cacheText));
      expect(error.code).toBe("P713");
      expect(error.problem).toEqual({ code: "P713", kind: "literal-surrogate", what: "string" });
      expect(error.message).toBe("policy.polar:4:14: string contains an unpaired UTF-16 surrogate");
      expect(error.format().split("\n").slice(1)).toEqual([
        " --> policy.polar:4:14",
        "  |",
        `4 |   has_tag(d, "x${LONE}");`,
        "  |              ^^^^",
      ]);
    });
  }

  it("prints the same policy with a writable constant", () => {
    expect(statement("x", "d1", lenient).sql).toContain("'x'");
  });
});

describe("P713 for a value of the request", () => {
  it("has no span and says the value came from the request", () => {
    const error = refusal(() => statement("x", `d${LONE}`, lenient));
    expect(error.code).toBe("P713");
    expect(error.problem).toEqual({
      code: "P713",
      kind: "literal-surrogate",
      what: "string",
      from: "request",
    });
    expect(error.diagnostic.span).toBeUndefined();
    expect(error.message).toBe(
      "string contains an unpaired UTF-16 surrogate, in a value of the request",
    );
  });

  it("matches nothing in a shipped dialect, whose canWrite keeps it out of the SQL", () => {
    expect(statement("x", `d${LONE}`, sqlite).sql).toBe("select false as allowed");
  });
});
