/**
 * The library's preview (src/preview): on every store engine, the gained and lost triples of
 * random small policy changes over random facts equal the brute-force difference of the
 * reference evaluator's authorize answers, and paging lists every triple exactly once.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { GroundFact } from "../src/core/value.js";
import { PreviewError } from "../src/preview/errors.js";
import { previewByEvaluation } from "../src/preview/evaluated.js";
import {
  type PreviewPage,
  type PreviewStore,
  previewPolicyChange,
} from "../src/preview/preview.js";
import { previewStoreOf } from "../src/preview/store-view.js";
import { type FactStore, openStore } from "../src/store/store.js";
import {
  bruteForce,
  factsArbitrary,
  policyPair,
  policyText,
  program,
  tripleKey,
} from "./preview-support.js";
import { serverSchema } from "./support/central-services.js";
import { propertyRuns } from "./support/runs.js";

const databaseUrl = process.env.DATABASE_URL;
const ENGINES = ["sqlite", "pglite", ...(databaseUrl ? ["postgres"] : [])] as const;
const stores = new Map<string, Promise<FactStore>>();
const drops: (() => Promise<void>)[] = [];

function storeOn(engine: (typeof ENGINES)[number]): Promise<FactStore> {
  let found = stores.get(engine);
  if (!found) {
    found =
      engine === "postgres"
        ? serverSchema(databaseUrl!, "preview").then((schema) => {
            drops.push(schema.drop);
            return openStore({ databaseUrl: schema.url, follow: false });
          })
        : openStore({ embedded: engine as "sqlite" | "pglite" });
    stores.set(engine, found);
  }
  return found;
}

afterAll(async () => {
  for (const store of stores.values()) await (await store).close();
  for (const drop of drops) await drop();
});

async function loaded(store: FactStore, facts: readonly GroundFact[]): Promise<PreviewStore> {
  await store.clear();
  if (facts.length > 0) await store.applyBatch([{ inserts: facts }]);
  return previewStoreOf(store);
}

const now = () => 0n;

/** Every page from the first, following `next_page_token`. */
async function allPages(
  view: PreviewStore,
  request: Parameters<typeof previewPolicyChange>[1],
): Promise<PreviewPage[]> {
  const pages = [await previewPolicyChange(view, request)];
  while (pages.at(-1)!.next_page_token) {
    const pageToken = pages.at(-1)!.next_page_token!;
    pages.push(await previewPolicyChange(view, { ...request, pageToken }));
  }
  return pages;
}

const BASE = `actor User {}
resource Repo {
  roles = ["reader", "admin"];
  permissions = ["read", "push"];
  "read" if "reader";
  "push" if "admin";
}
allow(actor, action, resource) if has_permission(actor, action, resource);
`;
const GRANT_PUSH = BASE.replace(`"push" if "admin";`, `"push" if "reader";`);
const ROLE_FACTS: GroundFact[] = ["a", "b", "c"].map((id, i) => ({
  predicate: "has_role",
  args: [
    { type: "User", id },
    { type: "String", id: i === 0 ? "admin" : "reader" },
    { type: "Repo", id: "r1" },
  ],
}));

describe.each(ENGINES)("preview on %s", (engine) => {
  it("equals the brute-force difference of authorize answers", async () => {
    const store = await storeOn(engine);
    await fc.assert(
      fc.asyncProperty(policyPair, factsArbitrary, async ([before, after], facts) => {
        const active = program(policyText(before));
        const candidate = program(policyText(after));
        const view = await loaded(store, facts.stored);
        const expected = bruteForce(active, candidate, [...facts.stored, ...facts.context]);
        const page = await previewPolicyChange(view, {
          active,
          candidate,
          contextFacts: facts.context,
          now,
        });
        expect(page.next_page_token).toBeUndefined();
        expect(page.gained.map(tripleKey).sort()).toEqual(expected.gained);
        expect(page.lost.map(tripleKey).sort()).toEqual(expected.lost);
        let counted = 0;
        for (const actions of Object.values(page.counts)) {
          for (const { gained, lost } of Object.values(actions)) counted += gained + lost;
        }
        expect(counted).toBe(expected.gained.length + expected.lost.length);
      }),
      { numRuns: propertyRuns(25, 300) },
    );
  });

  it("pages list every triple exactly once, in the order of one page", async () => {
    const store = await storeOn(engine);
    await fc.assert(
      fc.asyncProperty(
        policyPair,
        factsArbitrary,
        fc.integer({ min: 1, max: 4 }),
        async ([before, after], facts, pageSize) => {
          const active = program(policyText(before));
          const candidate = program(policyText(after));
          const view = await loaded(store, facts.stored);
          const request = { active, candidate, contextFacts: facts.context, now };
          const whole = await previewPolicyChange(view, request);
          const pages = await allPages(view, { ...request, pageSize });
          for (const page of pages) {
            expect(page.gained.length + page.lost.length).toBeLessThanOrEqual(pageSize);
            expect(page.counts).toEqual(whole.counts);
          }
          expect(pages.flatMap((p) => p.gained)).toEqual(whole.gained);
          expect(pages.flatMap((p) => p.lost)).toEqual(whole.lost);
        },
      ),
      { numRuns: propertyRuns(10, 100) },
    );
  });

  it("names the changed triples and counts them per resource type and permission", async () => {
    const view = await loaded(await storeOn(engine), ROLE_FACTS);
    const page = await previewPolicyChange(view, {
      active: program(BASE),
      candidate: program(GRANT_PUSH),
    });
    expect(page.gained.map((t) => `${t.actor.id} ${t.action} ${t.resource.id}`)).toEqual([
      "b push r1",
      "c push r1",
    ]);
    expect(page.lost.map((t) => `${t.actor.id} ${t.action} ${t.resource.id}`)).toEqual([
      "a push r1",
    ]);
    expect(page.counts).toEqual({
      Repo: { push: { gained: 2, lost: 1 }, read: { gained: 0, lost: 0 } },
    });
  });

  it("refuses a forged token, another preview's token and a bad page size", async () => {
    const view = await loaded(await storeOn(engine), ROLE_FACTS);
    const request = { active: program(BASE), candidate: program(GRANT_PUSH), pageSize: 1 };
    const first = await previewPolicyChange(view, request);
    const token = first.next_page_token!;
    const [payload, mac] = token.split(".");
    const forged = `${Buffer.from('["x",0,"r1","a",1]').toString("base64url")}.${mac}`;
    await expect(
      previewPolicyChange(view, { ...request, pageToken: forged }),
    ).rejects.toMatchObject({ code: "invalid-page-token", status: 400 });
    await expect(
      previewPolicyChange(view, { ...request, pageToken: `${payload}.x` }),
    ).rejects.toBeInstanceOf(PreviewError);
    const other = { ...request, candidate: program(`${GRANT_PUSH}\n# another candidate\n`) };
    await expect(previewPolicyChange(view, { ...other, pageToken: token })).rejects.toMatchObject({
      code: "foreign-page-token",
      status: 400,
    });
    await expect(previewPolicyChange(view, { ...request, pageSize: 0 })).rejects.toMatchObject({
      code: "invalid-page-size",
    });
    const second = await previewPolicyChange(view, { ...request, pageToken: token });
    expect(second.gained.length + second.lost.length).toBe(1);
  });

  it("refuses a change over the rows or the time budget, naming the limit", async () => {
    const view = await loaded(await storeOn(engine), ROLE_FACTS);
    const request = { active: program(BASE), candidate: program(GRANT_PUSH) };
    await expect(
      previewPolicyChange(view, { ...request, limits: { rows: 2 } }),
    ).rejects.toMatchObject({ code: "rows-limit", status: 422, message: /limit of 2 rows/ });
    await expect(
      previewPolicyChange(view, { ...request, limits: { timeMs: 0 } }),
    ).rejects.toMatchObject({ code: "time-limit", status: 422 });
    const within = await previewPolicyChange(view, { ...request, limits: { rows: 3 } });
    expect(within.gained.length + within.lost.length).toBe(3);
  });

  it("reports each policy's passing and failing test blocks", async () => {
    const view = await loaded(await storeOn(engine), []);
    const test = `test "admins push" {
  setup { has_role(User{"a"}, "admin", Repo{"r"}); has_role(User{"b"}, "reader", Repo{"r"}); }
  assert allow(User{"a"}, "push", Repo{"r"});
  assert_not allow(User{"b"}, "push", Repo{"r"});
}`;
    const page = await previewPolicyChange(view, {
      active: program(BASE + test),
      candidate: program(GRANT_PUSH + test),
    });
    expect(page.tests).toEqual({
      active: { passed: ["admins push"], failed: [] },
      candidate: { passed: [], failed: ["admins push"] },
    });
  });
});

describe("the evaluator's preview (the playground's)", () => {
  it("gives the library's triples, in its order, with its counts and tests", async () => {
    const store = await storeOn("sqlite");
    await fc.assert(
      fc.asyncProperty(policyPair, factsArbitrary, async ([before, after], facts) => {
        const active = program(policyText(before));
        const candidate = program(policyText(after));
        const view = await loaded(store, facts.stored);
        const request = { active, candidate, contextFacts: facts.context, now };
        const { next_page_token, ...page } = await previewPolicyChange(view, request);
        const all = [...facts.stored, ...facts.context];
        expect(previewByEvaluation(active, candidate, all, { now })).toEqual(page);
      }),
      { numRuns: propertyRuns(25, 250) },
    );
  });
});
