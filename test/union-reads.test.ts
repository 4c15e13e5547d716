/**
 * SELECTs of a UNION that read a recursive CTE, each moved into a derived table of its own
 * for MariaDB (src/lower/union-reads.ts): uncorrelated ones are, correlated ones (which a
 * derived table could not see) and ones holding the caller's SQL stay, and `unionReads`
 * counts what stays. Answers on MariaDB: test/local-dialects.test.ts (the mutual recursion
 * families, no longer refused).
 */
import { AliasNode, SelectAllNode, type SelectQueryNode } from "kysely";
import { describe, expect, it } from "vitest";
import { mysql } from "../src/dialects/mysql/index.js";
import { isolateRecursiveReads, unionReads } from "../src/lower/union-reads.js";
import { printTree } from "../src/print/printer.js";
import {
  aliased,
  binary,
  callerSql,
  columnRef,
  constant,
  select,
  tableAs,
  unary,
  union,
} from "../src/sql/nodes.js";

const RECURSIVE = new Set(["polar_r0"]);

/** `select <selection> from polar_r0 as <alias> where <alias>.s2 = <other>`. */
function reading(alias: string, other: string, selection = constant(1)): SelectQueryNode {
  return select({
    selections: [selection],
    from: [tableAs("polar_r0", alias)],
    where: binary(columnRef(alias, "s2"), "=", columnRef(other, "arg2")),
  });
}

function printed(node: SelectQueryNode): string {
  return printTree(mysql, node, { kind: "parameters" }, new Set()).sql;
}

describe("reads of recursive CTEs in a UNION", () => {
  it("move each uncorrelated SELECT into a derived table, keeping the column names", () => {
    const body = union(
      [
        select({
          selections: [aliased(constant(1), "actions")],
          from: [tableAs("polar_r0", "f0"), tableAs("polar_c0", "f1")],
          where: binary(columnRef("f0", "s2"), "=", columnRef("f1", "arg2")),
        }),
        reading("f0", "f0", columnRef("f0", "s2")),
      ],
      true,
    );
    expect(unionReads(body, RECURSIVE)).toEqual(new Map([["polar_r0", 2]]));
    const isolated = isolateRecursiveReads(body, RECURSIVE, "polar_") as SelectQueryNode;
    expect(unionReads(isolated, RECURSIVE)).toEqual(new Map());
    expect(AliasNode.is(isolated.from!.froms[0]!)).toBe(true);
    expect(printed(isolated)).toBe(
      "select polar_u0.actions from (select 1 as actions from polar_r0 as f0, polar_c0 as f1 where f0.s2 = f1.arg2) as polar_u0 union all select polar_u1.c0 from (select f0.s2 as c0 from polar_r0 as f0 where f0.s2 = f0.arg2) as polar_u1",
    );
  });

  it("leave SELECTs that read the enclosing query or the caller's SQL, and count them", () => {
    const correlated = union([reading("f1", "f0"), reading("f2", "f0")], true);
    const outer = select({
      selections: [constant(1)],
      from: [tableAs("polar_c0", "f0")],
      where: unary("not exists", correlated),
    });
    const kept = isolateRecursiveReads(outer, RECURSIVE, "polar_");
    expect(printed(kept as SelectQueryNode)).toBe(printed(outer));
    expect(unionReads(kept, RECURSIVE)).toEqual(new Map([["polar_r0", 2]]));
    const caller = union(
      [
        select({
          selections: [callerSql("t.id")],
          from: [tableAs("polar_r0", "f0")],
        }),
        reading("f0", "f0"),
      ],
      true,
    );
    const once = isolateRecursiveReads(caller, RECURSIVE, "polar_");
    expect(unionReads(once, RECURSIVE)).toEqual(new Map([["polar_r0", 1]]));
    // A `*` cannot be named column by column: that SELECT stays too.
    const star = union(
      [
        select({ selections: [SelectAllNode.create()], from: [tableAs("polar_r0", "f0")] }),
        reading("f0", "f0"),
      ],
      true,
    );
    expect(unionReads(isolateRecursiveReads(star, RECURSIVE, "polar_"), RECURSIVE)).toEqual(
      new Map([["polar_r0", 1]]),
    );
    // Nothing to isolate without recursive CTEs.
    expect(isolateRecursiveReads(correlated, new Set(), "polar_")).toBe(correlated);
  });
});
