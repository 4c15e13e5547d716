/**
 * Non-linear recursion answered centrally (issue 14, docs/fixpoint.md): families whose rules
 * call the family more than once in one conjunction are computed in the store by semi-naive
 * iteration. On random facts, and on random policies of such rules, authorize, list, actions,
 * evaluate_query and authorize_resources agree with the reference evaluator, on PGlite and on
 * the PostgreSQL server; the local endpoints refuse these policies naming the rule; a budget
 * bounds the iteration.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError, type PolarService } from "../src/api/service.js";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact, Value } from "../src/core/value.js";
import { indexFacts } from "../src/evaluate/index.js";
import { askEverything } from "./support/central-answers.js";
import type { CentralFamily } from "./support/central-families.js";
import {
  describeServiceEngines,
  factModesInTurn,
  onEngineInTurn,
} from "./support/central-services.js";
import { propertyRuns } from "./support/runs.js";

const RUNS = Number(process.env.CENTRAL_RUNS ?? propertyRuns(2, 8));
const NOW = 1_700_000_000n;

const v = (type: string, id: string): Value => ({ type, id });
const of = (type: string, ...ids: string[]) => ids.map((id) => v(type, id));
const fact = (predicate: string, ...args: Value[]): GroundFact => ({ predicate, args });

function pairs(predicate: string, left: readonly Value[], right: readonly Value[]): GroundFact[] {
  return left.flatMap((a) => right.map((b) => fact(predicate, a, b)));
}

const users = of("User", "ada", "bo");
const nodes = of("Node", "n1", "n2", "n3", "n4");
const groups = of("Group", "g1", "g2", "g3");
const docs = of("Doc", "d1", "d2");

const HEADER = `actor User {}
resource Node { permissions = ["read", "write", "audit"]; }
`;

/** `path(x, z) if path(x, y) and path(y, z)`: transitive closure, doubling. */
const closure: CentralFamily = {
  name: "transitive closure",
  file: "closure.polar",
  src: `${HEADER}path(x: Node, z: Node) if edge(x, z);
path(x: Node, z: Node) if path(x, y) and path(y, z);
allow(u: User, "read", n: Node) if start(u, m) and path(m, n);
allow(u: User, "write", n: Node) if start(u, n) and path(n, n);
allow(u: User, "audit", n: Node) if start(u, n) and not path(n, n);
`,
  actors: users,
  resources: nodes,
  actions: { Node: ["read", "write", "audit", "delete"] },
  space: [...pairs("edge", nodes, nodes), ...pairs("start", users, nodes)],
};

/**
 * OpenFGA's tuple-to-userset over a computed relation that is itself recursive: a group's
 * members include the members of every group nested in it, and nesting is transitive
 * (non-linear); documents grant groups.
 */
const userset: CentralFamily = {
  name: "tuple-to-userset over a recursive relation",
  file: "userset.polar",
  src: `actor User {}
resource Group {}
resource Doc { permissions = ["view", "edit"]; }
inside(h: Group, g: Group) if has_relation(g, "subgroup", h);
inside(h: Group, g: Group) if inside(h, x) and inside(x, g);
member(u: User, g: Group) if has_relation(g, "member", u);
member(u: User, g: Group) if inside(h, g) and member(u, h);
has_permission(u: User, "view", d: Doc) if has_relation(d, "viewer", g) and member(u, g);
has_permission(u: User, "edit", d: Doc) if has_relation(d, "editor", g) and member(u, g) and inside(g, _);
allow(actor, action, resource) if has_permission(actor, action, resource);
`,
  actors: users,
  resources: docs,
  actions: { Doc: ["view", "edit", "delete"] },
  space: [
    ...groups.flatMap((g) =>
      groups.map((h) => fact("has_relation", g, v("String", "subgroup"), h)),
    ),
    ...groups.flatMap((g) => users.map((u) => fact("has_relation", g, v("String", "member"), u))),
    ...docs.flatMap((d) =>
      groups.flatMap((g) => [
        fact("has_relation", d, v("String", "viewer"), g),
        fact("has_relation", d, v("String", "editor"), g),
      ]),
    ),
  ],
};

/** A cycle through two paths: `reach` and `link` call each other, one rule calls both. */
const twoPaths: CentralFamily = {
  name: "mutual recursion through two paths",
  file: "two-paths.polar",
  src: `${HEADER}reach(a: Node, b: Node) if edge(a, b);
reach(a: Node, b: Node) if reach(a, c) and link(c, b);
link(a: Node, b: Node) if reach(a, b) and mark(b);
link(a: Node, b: Node) if edge(a, c) and link(c, b);
allow(u: User, "read", n: Node) if start(u, m) and reach(m, n);
allow(u: User, "write", n: Node) if start(u, m) and link(m, n);
`,
  actors: users,
  resources: nodes,
  actions: { Node: ["read", "write", "delete"] },
  space: [
    ...pairs("edge", nodes, nodes),
    ...pairs("start", users, nodes),
    ...nodes.map((n) => fact("mark", n)),
  ],
};

const FAMILIES = [closure, userset, twoPaths];

function programOf(family: Pick<CentralFamily, "file" | "src">): Program {
  const checked = checkPolicy([{ name: family.file, text: family.src }]);
  if (!checked.ok) {
    throw new Error(`${family.file} does not check: ${JSON.stringify(checked.diagnostics)}`);
  }
  return checked.program;
}

const wire = (facts: readonly GroundFact[]) =>
  facts.map((f) => ({ predicate: f.predicate, args: f.args.map((a) => ({ ...a })) }));

/** The facts stored (after clearing the store's), then every question asked of them. */
async function askStored(
  service: PolarService,
  family: CentralFamily,
  program: Program,
  chosen: readonly GroundFact[],
) {
  await service.clearData();
  await service.batch([{ inserts: wire(chosen) }]);
  return askEverything(family, {
    service,
    program,
    facts: indexFacts(chosen),
    contextFacts: [],
    runSql: null,
    now: NOW,
  });
}

// ---------------------------------------------------------------- generated policies

/** One atom of a generated body: a predicate over two nodes, maybe with its arguments swapped. */
const atom = fc.record({ predicate: fc.constantFrom("edge", "r0", "r1"), swapped: fc.boolean() });
/** A rule `rN(a, b) if A1(a, v1) and … and Ak(vk-1, b)`. */
const rule = fc.record({
  head: fc.constantFrom("r0", "r1"),
  body: fc.array(atom, { minLength: 1, maxLength: 3 }),
});

function ruleText(generated: { head: string; body: { predicate: string; swapped: boolean }[] }) {
  const vars = ["a", ...generated.body.slice(1).map((_, i) => `v${i}`), "b"];
  const calls = generated.body.map(({ predicate, swapped }, i) => {
    const [x, y] = swapped ? [vars[i + 1], vars[i]] : [vars[i], vars[i + 1]];
    return `${predicate}(${x}, ${y})`;
  });
  return `${generated.head}(a: Node, b: Node) if ${calls.join(" and ")};`;
}

/**
 * A policy over `r0` and `r1`: both have an exit from `edge`, two rules make them one non-linear
 * family, the others
 * are drawn at random (non-linear, mutual, cyclic or not).
 */
const generatedPolicy = fc.array(rule, { minLength: 1, maxLength: 4 }).map(
  (rules): CentralFamily => ({
    ...closure,
    name: "generated",
    file: "generated.polar",
    src: `${HEADER}r0(a: Node, b: Node) if edge(a, b);
r1(a: Node, b: Node) if edge(b, a);
r0(a: Node, b: Node) if r0(a, c) and r1(c, b);
r1(a: Node, b: Node) if r1(a, c) and r0(c, b);
${rules.map(ruleText).join("\n")}
allow(u: User, "read", n: Node) if start(u, m) and r0(m, n);
allow(u: User, "write", n: Node) if start(u, m) and r1(m, n);
`,
  }),
);

describeServiceEngines({ now: () => NOW }, "non-linear recursion on $name", (engine) => {
  describe.each(FAMILIES.map((family, index) => ({ ...family, index })))("$name", (family) => {
    const program = programOf(family);
    const facts = fc.subarray([...family.space], { maxLength: Math.min(14, family.space.length) });
    const [stored, asContext] = factModesInTurn(family.index, engine).map((way) => way.asked);

    it.skipIf(!stored)(
      "every central API agrees with the reference evaluator",
      async () => {
        const service = await engine.service();
        const policy = await service.postPolicy({ src: family.src, filename: family.file }, {});
        expect([200, 202]).toContain(policy.status ?? 200);
        let allowed = 0;
        let questions = 0;
        await fc.assert(
          fc.asyncProperty(facts, async (chosen) => {
            const found = await askStored(service, family, program, chosen);
            expect(found.mismatches).toEqual([]);
            allowed += found.allowed;
            questions += found.questions;
          }),
          { numRuns: RUNS, examples: [[[...family.space]]] },
        );
        expect(allowed).toBeGreaterThan(0);
        expect(allowed).toBeLessThan(questions);
      },
      120_000,
    );

    it.skipIf(!asContext)(
      "answers with the facts sent as context facts",
      async () => {
        const service = await engine.service();
        await service.postPolicy({ src: family.src, filename: family.file }, {});
        await service.clearData();
        const chosen = family.space.filter((_, i) => i % 3 === 0);
        const found = await askEverything(family, {
          service,
          program,
          facts: indexFacts(chosen),
          contextFacts: chosen,
          runSql: null,
          now: NOW,
        });
        expect(found.mismatches).toEqual([]);
      },
      120_000,
    );
  });

  // On one engine in the quick run, the one after the last family's.
  it.skipIf(!onEngineInTurn(FAMILIES.length, engine))(
    "generated non-linear policies agree with the reference evaluator",
    async () => {
      const service = await engine.service();
      await fc.assert(
        fc.asyncProperty(
          generatedPolicy,
          fc.subarray([...closure.space], { maxLength: 12 }),
          async (family, chosen) => {
            const program = programOf(family);
            await service.postPolicy({ src: family.src, filename: family.file }, {});
            const found = await askStored(service, family, program, chosen);
            expect(found.mismatches).toEqual([]);
          },
        ),
        { numRuns: RUNS },
      );
    },
    300_000,
  );

  it("the local endpoints refuse a non-linear rule, naming it", async () => {
    const service = await engine.service();
    await service.postPolicy({ src: closure.src, filename: closure.file }, {});
    const query = {
      actor_type: "User",
      actor_id: "ada",
      action: "read",
      resource_type: "Node",
      resource_id: "n1",
    };
    const refused = service.authorizeQuery({ query, data_bindings: "facts:\n" });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toThrow(
      "closure.polar:4:42: cannot compile a rule for `path` that calls `path` recursively more than once in one conjunction",
    );
  });
});

describeServiceEngines(
  { now: () => NOW, fixpointBudget: { rounds: 3, rows: 10_000 } },
  "the iteration budget on $name",
  (engine) => {
    const chain = (length: number) =>
      Array.from({ length }, (_, i) => fact("edge", v("Node", `n${i}`), v("Node", `n${i + 1}`)));
    const query = { actor_type: "User", actor_id: "ada", action: "read", resource_type: "Node" };

    it("answers when the fixpoint comes within the budget", async () => {
      const service = await engine.service();
      await service.postPolicy({ src: closure.src, filename: closure.file }, {});
      await service.clearData();
      // n0 → n1 → n2 → n3: the doubling rule needs two rounds.
      await service.batch([
        { inserts: wire([...chain(3), fact("start", users[0]!, v("Node", "n0"))]) },
      ]);
      expect((await service.authorize({ ...query, resource_id: "n3" })).body).toEqual({
        allowed: true,
      });
      expect(
        (await service.authorize({ ...query, actor_id: "bo", resource_id: "n3" })).body,
      ).toEqual({ allowed: false });
    });

    it("refuses with a 400 naming the family when the rounds run out", async () => {
      const service = await engine.service();
      await service.postPolicy({ src: closure.src, filename: closure.file }, {});
      await service.clearData();
      // n0 → … → n40: about log2(40) rounds, more than 3.
      await service.batch([
        { inserts: wire([...chain(40), fact("start", users[0]!, v("Node", "n0"))]) },
      ]);
      const refused = service.authorize({ ...query, resource_id: "n40" });
      await expect(refused).rejects.toMatchObject({
        status: 400,
        message:
          "closure.polar:4:1: the recursion of `path` did not reach its fixpoint within 3 rounds",
      });
    });
  },
);
