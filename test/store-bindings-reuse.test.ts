/**
 * The central service keeps its plans per bindings object (the fact table as data bindings):
 * a write that adds no new fact shape keeps the object, so no question plans again after
 * it; a write of a new shape makes new bindings once.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { PolarService } from "../src/api/service.js";
import type * as storeBindingsModule from "../src/store/bindings.js";
import type { FactStore } from "../src/store/store.js";

vi.mock("../src/store/bindings.js", async (importOriginal) => {
  const original = await importOriginal<typeof storeBindingsModule>();
  return { ...original, storeBindings: vi.fn(original.storeBindings) };
});

const POLICY = `actor User {}
resource Org { roles = ["member"]; permissions = ["read"]; "read" if "member";
  "read" if is_public(resource); }`;

const fact = (predicate: string, ...args: [string, string][]) => ({
  predicate,
  args: args.map(([type, id]) => ({ type, id })),
});

let store: FactStore;
let service: PolarService;
let made: ReturnType<typeof vi.mocked<typeof storeBindingsModule.storeBindings>>;
beforeAll(async () => {
  // Files in one worker share loaded modules (vitest.config.ts, `isolate: false`): the service
  // is loaded afresh so that it imports the mocked module even when another file loaded it.
  vi.resetModules();
  const { serviceOver } = await import("../src/service/service.js");
  const { openStore } = await import("../src/store/store.js");
  made = vi.mocked((await import("../src/store/bindings.js")).storeBindings);
  store = await openStore({});
  service = serviceOver(store, { workers: 0 });
  await service.postPolicy({ filename: "policy.polar", src: POLICY }, {});
}, 60_000);
afterAll(() => store.close());

const read = async (user: string, org: string) =>
  (
    await service.authorize({
      actor_type: "User",
      actor_id: user,
      action: "read",
      resource_type: "Org",
      resource_id: org,
      context_facts: [],
    })
  ).body;

it("keeps the fact table's bindings across writes that add no shape", async () => {
  await service.batch([
    { inserts: [fact("has_role", ["User", "ada"], ["String", "member"], ["Org", "1"])] },
  ]);
  expect(await read("ada", "1")).toEqual({ allowed: true });
  const before = made.mock.calls.length;
  for (let i = 2; i < 5; i++) {
    await service.batch([
      { inserts: [fact("has_role", ["User", "ada"], ["String", "member"], ["Org", String(i)])] },
    ]);
    expect(await read("ada", String(i))).toEqual({ allowed: true });
  }
  expect(made.mock.calls.length).toBe(before);
  // A new shape (is_public over Org) makes new bindings once, and is answered.
  await service.batch([{ inserts: [fact("is_public", ["Org", "9"])] }]);
  expect(await read("bo", "9")).toEqual({ allowed: true });
  expect(await read("bo", "8")).toEqual({ allowed: false });
  expect(made.mock.calls.length).toBe(before + 1);
});
