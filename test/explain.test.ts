/**
 * The explain library: the node format (rules with file, line, column and text; facts with
 * their source; builtins as nodes; the implicit default allow), the notes of a denial, the
 * documented bounds, shortest proofs through recursion, and the independent checker's refusal
 * of trees that lie.
 */
import { describe, expect, it } from "vitest";
import { checkPolicyOrThrow } from "../src/check/check.js";
import type { GroundFact, Value } from "../src/core/value.js";
import {
  authorize,
  DEFAULT_LIMITS,
  EvaluationError,
  type ExplainNode,
  explain,
  formatExplanation,
} from "../src/evaluate/index.js";
import { check } from "./support/explain-checker.js";

const v = (type: string, id: string): Value => ({ type, id });
const s = (id: string) => v("String", id);
const fact = (predicate: string, ...args: Value[]): GroundFact => ({ predicate, args });
const NOW = 1_700_000_000n;

const FOLDERS = `actor User {}
resource Folder {
  roles = ["reader", "writer"];
  permissions = ["list", "upload"];
  relations = { parent: Folder };
  role if role on "parent";
  "reader" if "writer";
  "list" if "reader";
  "upload" if "writer";
}
resource Document {
  permissions = ["open", "edit"];
  relations = { folder: Folder };
  "open" if "list" on "folder";
  "edit" if "upload" on "folder";
}
`;
const folders = checkPolicyOrThrow([{ name: "folders.polar", text: FOLDERS }]);
const ada = v("User", "ada");
const doc = v("Document", "a");
const folder = (id: string) => v("Folder", id);
const parent = (child: string, of: string) =>
  fact("has_relation", folder(child), s("parent"), folder(of));

/** Every node of a tree, depth first. */
function nodes(tree: ExplainNode): ExplainNode[] {
  return [tree, ...tree.children.flatMap(nodes)];
}

function height(tree: ExplainNode): number {
  return 1 + Math.max(0, ...tree.children.map(height));
}

describe("allowed: a proof", () => {
  const facts = [
    fact("has_relation", doc, s("folder"), folder("3")),
    parent("3", "2"),
    fact("has_role", ada, s("writer"), folder("2")),
  ];

  it("names each rule by file, line, column and text, and each fact by its source", () => {
    const { allowed, explanation } = explain(
      folders,
      { actor: ada, action: "open", resource: doc },
      facts,
    );
    expect(allowed).toBe(true);
    expect(explanation.goal).toBe('allow(User{"ada"}, "open", Document{"a"})');
    expect(explanation.rule).toBeUndefined(); // the implicit default allow
    const [permission] = explanation.children;
    expect(permission).toMatchObject({
      goal: 'has_permission(User{"ada"}, "open", Document{"a"})',
      holds: true,
      rule: { file: "folders.polar", line: 14, column: 3, text: '"open" if "list" on "folder";' },
    });
    const leaves = nodes(explanation).filter((node) => node.fact);
    expect(leaves.map((leaf) => leaf.fact)).toEqual([
      { predicate: "has_relation", args: [doc, s("folder"), folder("3")], source: "stored" },
      {
        predicate: "has_relation",
        args: [folder("3"), s("parent"), folder("2")],
        source: "stored",
      },
      { predicate: "has_role", args: [ada, s("writer"), folder("2")], source: "stored" },
    ]);
    expect(nodes(explanation).every((node) => node.holds)).toBe(true);
    expect(nodes(explanation).map((node) => node.goal)).toContain('Folder{"3"} matches Folder');
    expect(check({ program: folders, facts: { stored: facts }, now: NOW }, explanation)).toEqual(
      [],
    );
  });

  it("marks context and local facts", () => {
    const [link, up, role] = facts as [GroundFact, GroundFact, GroundFact];
    const { explanation } = explain(
      folders,
      { actor: ada, action: "open", resource: doc },
      [link],
      {
        contextFacts: [role],
        localFacts: [up],
      },
    );
    const sources = nodes(explanation).flatMap((node) => (node.fact ? [node.fact.source] : []));
    expect(sources).toEqual(["stored", "local", "context"]);
    const bySource = { stored: [link], local: [up], context: [role] };
    expect(check({ program: folders, facts: bySource, now: NOW }, explanation)).toEqual([]);
  });

  it("names a declared allow rule; the default allow has none", () => {
    const program = checkPolicyOrThrow([
      {
        name: "custom.polar",
        text: `${FOLDERS}allow(user: User, "peek", doc: Document) if has_permission(user, "open", doc);\n`,
      },
    ]);
    const { explanation } = explain(program, { actor: ada, action: "peek", resource: doc }, facts);
    expect(explanation.rule).toEqual({
      file: "custom.polar",
      line: 17,
      column: 1,
      text: 'allow(user: User, "peek", doc: Document) if has_permission(user, "open", doc);',
    });
  });

  it("shows comparisons, `not` and `in` as nodes", () => {
    const program = checkPolicyOrThrow([
      {
        name: "levels.polar",
        text: `actor User {}
resource Doc { permissions = ["read"]; }
has_permission(user: User, "read", doc: Doc) if
  level(user, l) and doc_level(doc, m) and l >= m and not banned(user) and m in [1, 2, 3];
`,
      },
    ]);
    const levelFacts = [
      fact("level", ada, v("Integer", "3")),
      fact("doc_level", v("Doc", "d"), v("Integer", "2")),
    ];
    const { allowed, explanation } = explain(
      program,
      { actor: ada, action: "read", resource: v("Doc", "d") },
      levelFacts,
    );
    expect(allowed).toBe(true);
    const goals = nodes(explanation).map((node) => node.goal);
    expect(goals).toEqual(
      expect.arrayContaining(["3 >= 2", 'not banned(User{"ada"})', "2 in [1, 2, 3]"]),
    );
    expect(check({ program, facts: { stored: levelFacts }, now: NOW }, explanation)).toEqual([]);
  });

  it("prefers the shortest derivation through recursion and never loops", () => {
    // Folder 3 reaches ada's role through 2 -> 1 (long) and through 9 (short); 1 and 3 form a
    // cycle through 2.
    const recursive = [
      fact("has_relation", doc, s("folder"), folder("3")),
      parent("3", "2"),
      parent("2", "1"),
      parent("1", "3"),
      parent("3", "9"),
      fact("has_role", ada, s("reader"), folder("1")),
      fact("has_role", ada, s("reader"), folder("9")),
    ];
    const { explanation } = explain(
      folders,
      { actor: ada, action: "open", resource: doc },
      recursive,
    );
    const goals = nodes(explanation).map((node) => node.goal);
    expect(goals).toContain('has_role(User{"ada"}, "reader", Folder{"9"})');
    expect(goals).not.toContain('has_role(User{"ada"}, "reader", Folder{"1"})');
    const keys = new Set<string>();
    const noRepeat = (node: ExplainNode, path: string[]): boolean =>
      !path.includes(node.goal) && node.children.every((c) => noRepeat(c, [...path, node.goal]));
    expect(noRepeat(explanation, [])).toBe(true);
    keys.add(explanation.goal);
    expect(
      check({ program: folders, facts: { stored: recursive }, now: NOW }, explanation),
    ).toEqual([]);
  });

  it("proves a goal through a universal rule without children", () => {
    const program = checkPolicyOrThrow([
      {
        name: "bots.polar",
        text: `actor Bot {}
resource Doc { permissions = ["read"]; }
has_permission(_: Bot, "read", _: Doc);
`,
      },
    ]);
    const { allowed, explanation } = explain(
      program,
      { actor: v("Bot", "r2"), action: "read", resource: v("Doc", "d") },
      [],
    );
    expect(allowed).toBe(true);
    expect(explanation.children[0]).toMatchObject({
      rule: { line: 3, text: 'has_permission(_: Bot, "read", _: Doc);' },
      children: [],
    });
    expect(check({ program, facts: {}, now: NOW }, explanation)).toEqual([]);
  });
});

describe("denied: what was tried", () => {
  it("names the missing fact, and the first condition that failed in each rule", () => {
    const facts = [fact("has_relation", doc, s("folder"), folder("3"))];
    const { allowed, explanation } = explain(
      folders,
      { actor: ada, action: "open", resource: doc },
      facts,
    );
    expect(allowed).toBe(false);
    const text = formatExplanation(explanation);
    expect(text).toContain(
      '✗ has_permission(User{"ada"}, "open", Document{"a"})  folders.polar:14',
    );
    expect(text).toContain('✓ has_relation(Document{"a"}, "folder", Folder{"3"})  stored fact');
    expect(text).toContain('note: no fact `has_role(User{"ada"}, "reader", Folder{"3"})`');
    expect(text).toContain(
      'note: no fact matches `has_relation(Folder{"3"}, "parent", _: Folder)`',
    );
    expect(check({ program: folders, facts: { stored: facts }, now: NOW }, explanation)).toEqual(
      [],
    );
  });

  it("lists the declared permissions for an undeclared action", () => {
    const { explanation } = explain(folders, { actor: ada, action: "delete", resource: doc }, []);
    expect(explanation.note).toBe(
      "`Document` does not declare the permission `delete`; its permissions are `edit`, `open`",
    );
  });

  it("names a type the policy does not know", () => {
    const { allowed, explanation } = explain(
      folders,
      { actor: v("Robot", "r1"), action: "open", resource: v("Spaceship", "s1") },
      [],
    );
    expect(allowed).toBe(false);
    expect(explanation.note).toBe(
      "the policy does not know the type `Robot`; the policy does not know the type `Spaceship`",
    );
  });

  it("is bounded in depth, with a note where it was cut", () => {
    const chain = [fact("has_relation", doc, s("folder"), folder("0"))];
    for (let i = 0; i < 40; i++) chain.push(parent(String(i), String(i + 1)));
    const question = { actor: ada, action: "open", resource: doc };
    const full = explain(folders, question, chain).explanation;
    expect(height(full)).toBeLessThanOrEqual(2 * DEFAULT_LIMITS.maxDepth + 2);
    expect(nodes(full).length).toBeLessThanOrEqual(DEFAULT_LIMITS.maxNodes * 2);
    const cut = nodes(full).find((node) => node.note?.startsWith("not expanded"));
    expect(cut?.note).toBe(
      `not expanded: a denied tree shows at most ${DEFAULT_LIMITS.maxDepth} levels and ${DEFAULT_LIMITS.maxNodes} nodes`,
    );
    const shallow = explain(folders, question, chain, { limits: { maxDepth: 2 } }).explanation;
    expect(height(shallow)).toBeLessThan(height(full));
    expect(check({ program: folders, facts: { stored: chain }, now: NOW }, full)).toEqual([]);
  });

  it("shows at most `maxBranches` rules per goal, with a note", () => {
    const { explanation } = explain(
      folders,
      { actor: ada, action: "open", resource: doc },
      [fact("has_relation", doc, s("folder"), folder("3"))],
      { limits: { maxBranches: 1 } },
    );
    const notes = nodes(explanation).flatMap((node) => (node.note ? [node.note] : []));
    expect(notes.some((note) => note.includes("1 more rules not shown"))).toBe(true);
  });

  it("stops at a cycle with a note", () => {
    const cyclic = [
      fact("has_relation", doc, s("folder"), folder("1")),
      parent("1", "2"),
      parent("2", "1"),
    ];
    const { explanation } = explain(folders, { actor: ada, action: "open", resource: doc }, cyclic);
    const notes = nodes(explanation).map((node) => node.note);
    expect(notes).toContain("recursion: this goal is being explained above");
  });
});

describe("answers", () => {
  it("refuses what authorize refuses, with the same error", () => {
    const question = { actor: v("User", ""), action: "open", resource: doc };
    expect(() => authorize(folders, [], question.actor, "open", doc)).toThrow(EvaluationError);
    expect(() => explain(folders, question, [])).toThrow("the actor needs a non-empty type and id");
  });
});

describe("the checker refuses trees that lie", () => {
  const facts = [
    fact("has_relation", doc, s("folder"), folder("3")),
    parent("3", "2"),
    fact("has_role", ada, s("writer"), folder("2")),
  ];
  const { explanation } = explain(folders, { actor: ada, action: "edit", resource: doc }, facts);
  const input = { program: folders, facts: { stored: facts }, now: NOW };
  const tamper = (change: (text: string) => string) =>
    check(input, JSON.parse(change(JSON.stringify(explanation))) as ExplainNode);

  it("accepts the true tree", () => {
    expect(check(input, explanation)).toEqual([]);
  });

  it.each([
    [
      "a fact from another source",
      (t: string) => t.replace('"source":"stored"', '"source":"context"'),
    ],
    ["a rule at another line", (t: string) => t.replace('"line":15', '"line":14')],
    ["a rule with other text", (t: string) => t.replace('\\"edit\\" if', '\\"open\\" if')],
    [
      "a fact that does not exist",
      (t: string) => t.replaceAll('Folder{\\"2\\"}', 'Folder{\\"7\\"}'),
    ],
    [
      "a child that does not hold",
      (t: string) => t.replace(/"holds":true(?![\s\S]*"holds":true)/, '"holds":false'),
    ],
    [
      "another substitution in one child",
      (t: string) =>
        t.replace(
          '"goal":"Folder{\\"3\\"} matches Folder"',
          '"goal":"Folder{\\"4\\"} matches Folder"',
        ),
    ],
  ])("refuses %s", (_, change) => {
    expect(tamper(change)).not.toEqual([]);
  });

  it("refuses a rule node missing a child", () => {
    const copy = structuredClone(explanation) as unknown as { children: { children: unknown[] }[] };
    copy.children[0]!.children.pop();
    expect(check(input, copy as unknown as ExplainNode)).not.toEqual([]);
  });

  it("refuses a denial of something that holds", () => {
    const lie = { ...explanation, holds: false, children: [] };
    expect(check(input, lie)).not.toEqual([]);
  });
});
