/**
 * The playground prints proofs of any depth (issue 27), and one too large to print (a proof whose
 * shared subproofs double at each level) is named instead of hanging the page; the service
 * refuses the same proof with the `explainNodes` limit.
 */
import { describe, expect, it } from "vitest";
import { FOLDER_POLICY, folderCase } from "../bench/explain/folder-graphs.js";
import { answer } from "../playground/src/engine.js";
import { checkPolicy } from "../src/check/check.js";
import type { Program } from "../src/check/program.js";
import type { GroundFact } from "../src/core/value.js";
import { createService } from "../src/service/service.js";
import { sharedWorkerPool } from "./support/worker-pool.js";

function programOf(text: string): Program {
  const checked = checkPolicy([{ name: "policy.polar", text }]);
  if (!checked.ok) throw new Error(checked.diagnostics[0]?.message);
  return checked.program;
}

/** `ok` of a folder needs `ok` of its parent twice: the proof's tree doubles per level. */
const DOUBLING = `actor User {}
resource Folder {
  roles = ["viewer"];
  permissions = ["read"];
  relations = { parent: Folder };
}
has_permission(u: User, "read", f: Folder) if ok(u, f);
ok(u: User, f: Folder) if has_role(u, "viewer", f);
ok(u: User, f: Folder) if has_relation(f, "parent", p) and ok(u, p) and again(u, p);
again(u: User, f: Folder) if ok(u, f);
`;
const LEVELS = 24;
const doubling: GroundFact[] = [
  ...Array.from({ length: LEVELS }, (_, i) => ({
    predicate: "has_relation",
    args: [
      { type: "Folder", id: `f${i}` },
      { type: "String", id: "parent" },
      { type: "Folder", id: `f${i + 1}` },
    ],
  })),
  {
    predicate: "has_role",
    args: [
      { type: "User", id: "alice" },
      { type: "String", id: "viewer" },
      { type: "Folder", id: `f${LEVELS}` },
    ],
  },
];
const question = {
  kind: "authorize" as const,
  actor: { type: "User", id: "alice" },
  action: "read",
  resource: { type: "Folder", id: "f0" },
};

describe("proofs in the playground", () => {
  it("prints a 3,000-deep proof", () => {
    const chain = folderCase("deep", 3000);
    const shown = answer(programOf(FOLDER_POLICY), chain.facts as GroundFact[], {
      ...question,
      resource: { type: "Document", id: "plan.md" },
    });
    expect(shown.text).toBe("allowed");
    expect(shown.kind === "authorize" && shown.explanation.split("\n").length).toBe(9004);
  });

  it("names a proof too large to print", () => {
    const shown = answer(programOf(DOUBLING), doubling, question);
    expect(shown.text).toBe("allowed");
    expect(shown.kind === "authorize" && shown.explanation).toBe(
      "the explanation has more than 100000 nodes; it is not shown",
    );
  });
});

describe("the service and a proof that doubles per level", () => {
  it("refuses it with a 422 naming the limit", async () => {
    const body = {
      actor_type: "User",
      actor_id: "alice",
      action: "read",
      resource_type: "Folder",
      resource_id: "f0",
    };
    const service = await createService({ pool: sharedWorkerPool() });
    try {
      await service.postPolicy({ src: DOUBLING, filename: "policy.polar" }, {});
      await service.batch([{ inserts: doubling }]);
      expect(((await service.authorize(body)).body as { allowed: boolean }).allowed).toBe(true);
      const refusal = await service.explain(body).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ status: 422 });
      // Its JSON passes 16 MiB before its nodes pass 100,000.
      expect((refusal as Error).message).toMatch(
        /over the limit of .* \(raise it with `--max-explain-(nodes|bytes)`/,
      );
    } finally {
      await service.close();
    }
  });
});
