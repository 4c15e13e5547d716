import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  dependencyGraph,
  findComponents,
  predicateStrata,
  stronglyConnectedComponents,
} from "../src/check/graph.js";
import { checkOk } from "./check-support.js";

describe("findComponents", () => {
  it("returns components callees first", () => {
    const edges: Record<string, string[]> = { a: ["b"], b: ["a", "c"], c: [], d: ["a"] };
    expect(findComponents(["a", "b", "c", "d"], (n) => edges[n]!)).toEqual([
      ["c"],
      ["a", "b"],
      ["d"],
    ]);
  });
  it("handles deep chains without recursion limits", () => {
    const n = 100_000;
    const components = findComponents(
      Array.from({ length: n }, (_, i) => i),
      (i) => (i + 1 < n ? [i + 1] : []),
    );
    expect(components).toHaveLength(n);
    expect(components[0]).toEqual([n - 1]);
  });
  it("property: every edge goes to the same or an earlier component", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 12 })
          .chain((size) =>
            fc.tuple(
              fc.constant(size),
              fc.array(fc.tuple(fc.nat(size - 1), fc.nat(size - 1)), { maxLength: 30 }),
            ),
          ),
        ([size, edgeList]) => {
          const successors = (node: number) =>
            edgeList.filter(([from]) => from === node).map(([, to]) => to);
          const components = findComponents(
            Array.from({ length: size }, (_, i) => i),
            successors,
          );
          const componentOf = new Map<number, number>();
          components.forEach((members, i) => {
            for (const m of members) componentOf.set(m, i);
          });
          expect(componentOf.size).toBe(size);
          for (const [from, to] of edgeList) {
            expect(componentOf.get(to)!).toBeLessThanOrEqual(componentOf.get(from)!);
          }
          // nodes of one component reach each other
          const reaches = (a: number, b: number) => {
            const seen = new Set([a]);
            const queue = [a];
            while (queue.length)
              for (const next of successors(queue.pop()!)) {
                if (!seen.has(next)) {
                  seen.add(next);
                  queue.push(next);
                }
              }
            return seen.has(b);
          };
          for (const members of components) {
            for (const a of members) for (const b of members) expect(reaches(a, b)).toBe(true);
          }
        },
      ),
    );
  });
});

describe("predicate dependency graph", () => {
  const program = checkOk(`
    actor User {}
    resource Folder {
      roles = ["reader"];
      permissions = ["list"];
      relations = { parent: Folder };
      role if role on "parent";
      "list" if "reader" and not is_hidden(resource);
    }
    is_hidden(f: Folder) if flagged(f);
    even(0);
    even(n) if odd(m) and succ(m, n);
    odd(n) if even(m) and succ(m, n);
  `);

  it("has one edge per call, negative under not", () => {
    const graph = dependencyGraph(program);
    const edges = graph.edges.get("has_permission/3")!.map((e) => [e.to, e.negative]);
    expect(edges).toEqual([
      ["has_role/3", false],
      ["is_hidden/1", true],
    ]);
    expect(graph.nodes).toContain("flagged/1");
  });
  it("components come callees first with recursion flags and strata", () => {
    const components = stronglyConnectedComponents(program);
    const index = (key: string) => components.findIndex((c) => c.predicates.includes(key as never));
    expect(index("flagged/1")).toBeLessThan(index("is_hidden/1"));
    expect(index("is_hidden/1")).toBeLessThan(index("has_permission/3"));
    expect(index("has_permission/3")).toBeLessThan(index("allow/3"));
    const of = (key: string) => components[index(key)]!;
    expect(of("has_role/3")).toMatchObject({ recursive: true, stratum: 0 });
    expect(of("is_hidden/1")).toMatchObject({ recursive: false, stratum: 0 });
    expect(of("has_permission/3")).toMatchObject({ recursive: false, stratum: 1 });
    expect(of("allow/3").stratum).toBe(1);
    expect([...of("even/1").predicates].sort()).toEqual(["even/1", "odd/1"]);
  });
  it("predicateStrata puts negated predicates in lower strata", () => {
    const strata = predicateStrata(program);
    expect(strata).toHaveLength(2);
    expect(strata[0]).toContain("is_hidden/1");
    expect(strata[0]).toContain("has_role/3");
    expect(strata[1]).toEqual(expect.arrayContaining(["has_permission/3", "allow/3"]));
  });
});
