/**
 * Posting a policy while questions are asked (issue 13): the main thread checks it in slices
 * (src/core/steps.ts), and before it becomes active every worker checks it and the question
 * shapes in use are planned for it (`prepareFor` in src/service/service.ts), so that no question
 * waits for a check or a plan after the switch. Times are measured in bench/hostile, not here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLimits } from "../src/api/limits.js";
import type { PolarService } from "../src/api/service.js";
import { checkPolicy, checkPolicyInSlices } from "../src/check/check.js";
import { serviceOver } from "../src/service/service.js";
import type { SourceFile } from "../src/source/source.js";
import { openStore } from "../src/store/store.js";
import { createWorkerPool, type WorkerPool } from "../src/workers/pool.js";
import type { Task } from "../src/workers/work.js";
import { propertyRuns } from "./support/runs.js";

const BASE = `actor User {}
resource Folder { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
`;
const manyRules = (n: number) =>
  `${BASE}${Array.from(
    { length: n },
    (_, i) => `has_role(u: User, "viewer", d: Doc) if has_relation(d, "r${i}", u);`,
  ).join("\n")}\n`;

const examples = readdirSync(join(import.meta.dirname, "..", "examples"), {
  recursive: true,
  encoding: "utf8",
})
  .filter((file) => file.endsWith(".polar"))
  .map((file) => ({
    name: file,
    text: readFileSync(join(import.meta.dirname, "..", "examples", file), "utf8"),
  }));

describe("checking in slices", () => {
  it("has examples to check", () => {
    expect(examples.length).toBeGreaterThan(5);
  });

  it("gives what checking at once gives, for valid and broken policies", async () => {
    const edited = fc
      .record({
        file: fc.constantFrom(...examples),
        at: fc.nat(),
        cut: fc.nat({ max: 40 }),
        insert: fc.constantFrom("", "(", "}", '"', " or ", "\u0000", "x.y", ";;", "if"),
      })
      .map(({ file, at, cut, insert }): SourceFile => {
        const start = at % (file.text.length + 1);
        return {
          name: file.name,
          text: file.text.slice(0, start) + insert + file.text.slice(start + cut),
        };
      });
    await fc.assert(
      fc.asyncProperty(fc.array(edited, { minLength: 1, maxLength: 3 }), async (sources) => {
        // Slices of 0 ms return to the event loop at every step.
        expect(await checkPolicyInSlices(sources, 0)).toEqual(checkPolicy(sources));
      }),
      { numRuns: propertyRuns(40, 400) },
    );
  });

  it("returns to the event loop while a large policy is checked", async () => {
    const sources = [{ name: "big.polar", text: manyRules(3000) }];
    let turns = 0;
    let done = false;
    const count = () => {
      if (done) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    const result = await checkPolicyInSlices(sources, 1);
    done = true;
    expect(result.ok).toBe(true);
    expect(turns).toBeGreaterThan(5);
  });

  it("holds the loop for the whole check when run at once (what the slices avoid)", async () => {
    const sources = [{ name: "big.polar", text: manyRules(3000) }];
    let turns = 0;
    setImmediate(() => turns++);
    const result = await (async () => checkPolicy(sources))();
    expect(result.ok).toBe(true);
    expect(turns).toBe(0);
  });
});

/** A pool that records what it is asked to do. */
function recording(pool: WorkerPool) {
  const tasks: string[] = [];
  const warmed: string[] = [];
  const recorder: WorkerPool = {
    run(task: Task, deadlineMs: number, background?: boolean) {
      const what = task.kind === "plan" ? `plan ${task.goal.calls[0]?.name}` : task.kind;
      tasks.push(background ? `${what} ahead` : what);
      return pool.run(task, deadlineMs, background);
    },
    warm(sources) {
      warmed.push(sources.map((file) => file.text).join(""));
      pool.warm(sources);
    },
    close: () => pool.close(),
  };
  const reset = () => {
    tasks.length = 0;
    warmed.length = 0;
  };
  return { recorder, tasks, warmed, reset };
}

const ada = { type: "User", id: "ada" };
const question = (type: string, id: string) => ({
  actor_type: "User",
  actor_id: "ada",
  action: "read",
  resource_type: type,
  resource_id: id,
});

describe("a policy switch", () => {
  const pool = createWorkerPool({ size: 2 });
  const record = recording(pool);
  let service: PolarService;

  async function allowed(type: string, id: string): Promise<boolean> {
    const reply = await service.authorize(question(type, id));
    return (reply.body as { allowed: boolean }).allowed;
  }

  beforeAll(async () => {
    service = serviceOver(await openStore({ embedded: "sqlite" }), { pool: record.recorder });
    await service.postPolicy({ src: BASE, filename: "base.polar" }, {});
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [ada, { type: "String", id: "viewer" }, { type: "Folder", id: "f1" }],
          },
          {
            predicate: "has_relation",
            args: [{ type: "Doc", id: "d2" }, { type: "String", id: "r7" }, ada],
          },
        ],
      },
    ]);
  });

  afterAll(async () => {
    await service.close();
    await pool.close();
  });

  it("plans the question shapes in use for the new policy before it becomes active", async () => {
    expect(await allowed("Folder", "f1")).toBe(true);
    expect(await allowed("Doc", "d2")).toBe(false);
    record.reset();

    const src = manyRules(500);
    const reply = await service.postPolicy({ src, filename: "many.polar" }, {});
    expect(reply.status).toBe(200);
    expect(record.tasks.sort()).toEqual(["plan allow ahead", "plan allow ahead", "policy"]);
    expect(record.warmed).toEqual([src]);

    record.reset();
    expect(await allowed("Folder", "f1")).toBe(true);
    expect(await allowed("Doc", "d2")).toBe(true);
    expect(record.tasks).toEqual([]);
  });

  it("plans a shape first asked after the switch on demand", async () => {
    record.reset();
    const reply = await service.actions({ ...question("Doc", "d2"), action: undefined });
    expect(reply.body).toEqual({ results: ["read"] });
    expect(record.tasks).toEqual(["plan allow"]);
  });

  it("neither warms nor plans for a policy that does not check, and keeps the active one", async () => {
    record.reset();
    await expect(
      service.postPolicy({ src: `${BASE}\nresource Broken {`, filename: "broken.polar" }, {}),
    ).rejects.toMatchObject({ status: 400 });
    expect(record.tasks).toEqual(["policy"]);
    expect(record.warmed).toEqual([]);
    expect(await allowed("Doc", "d2")).toBe(true);
  });

  it("keeps its workers when warmed with text that does not check", async () => {
    pool.warm([{ name: "junk.polar", text: "resource (" }]);
    expect(await allowed("Folder", "f1")).toBe(true);
    const reply = await service.actions({ ...question("Folder", "f1"), action: undefined });
    expect(reply.body).toEqual({ results: ["read"] });
  });
});

describe("background tasks in the pool", () => {
  it("never take the last free worker, and queue behind every other task", async () => {
    const pool = createWorkerPool({ size: 2 });
    try {
      const finished: string[] = [];
      const judge = (text: string, name: string, background: boolean) =>
        pool
          .run(
            {
              kind: "policy",
              sources: [{ name: `${name}.polar`, text }],
              limits: resolveLimits({}),
              now: null,
              failFast: false,
            },
            60_000,
            background,
          )
          .then((outcome) => {
            finished.push(name);
            return outcome;
          });
      // Both workers started and idle.
      await Promise.all([judge(BASE, "start1", false), judge(BASE, "start2", false)]);
      finished.length = 0;
      const slow = manyRules(3000);
      const ahead = [1, 2, 3].map((i) => judge(`${slow}# ${i}\n`, `ahead${i}`, true));
      const asked = judge(BASE, "asked", false);
      await Promise.all([...ahead, asked]);
      // The question's task took the worker no background task may hold, and finished first.
      expect(finished[0]).toBe("asked");
      expect(finished.slice(1)).toEqual(["ahead1", "ahead2", "ahead3"]);
    } finally {
      await pool.close();
    }
  });
});
