import { createService } from "../../src/api/central.js";

const url = process.env.DATABASE_URL;
const svc = await createService(url ? ({ databaseUrl: url } as never) : {});
const policy = `actor User {}
resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
has_role(u: User, "viewer", d: Doc) if has_relation(d, "owner", u);
`;
await svc.clearData();
console.log((await svc.postPolicy({ src: policy, filename: "p.polar" }, {})).body);
async function t(name: string, f: () => Promise<unknown>) {
  const s = performance.now();
  try {
    const r: any = await f();
    console.log(
      name,
      "ok",
      Math.round(performance.now() - s),
      JSON.stringify(r.body).slice(0, 200),
    );
  } catch (e: any) {
    console.log(
      name,
      "ERR",
      e.status ?? e.name,
      Math.round(performance.now() - s),
      String(e.message).slice(0, 300),
    );
  }
}
const which = process.argv[2] ?? "";
const q = (n: number, c: string) => ({
  predicate: ["allow", ["a", "b", "c"]],
  calls: Array.from({ length: n }, () => [c, ["a", "b", "c"]]),
  constraints: {
    a: { type: "User", ids: ["u"] },
    b: { type: "String", ids: ["read"] },
    c: { type: "Doc", ids: ["d"] },
  },
});
if (which.includes("calls"))
  for (const n of [5, 20, 100, 1000])
    await t(`eq calls allow ${n}`, () => svc.evaluateQuery(q(n, "allow")));
if (which.includes("res"))
  for (const n of [10000, 30000])
    await t(`authz_res ${n}`, () =>
      svc.authorizeResources({
        actor_type: "User",
        actor_id: "u",
        action: "read",
        resources: Array.from({ length: n }, (_, i) => ({ type: "Doc", id: `d${i}` })),
      }),
    );
if (which.includes("or"))
  for (const k of [10, 12, 14]) {
    const body = Array.from(
      { length: k },
      (_, i) => `(has_relation(d, "a${i}", u) or has_relation(d, "b${i}", u))`,
    ).join(" and ");
    await t(`or x${k}`, () =>
      svc.postPolicy(
        { src: policy + `\nhas_role(u: User, "viewer", d: Doc) if ${body};`, filename: "p.polar" },
        {},
      ),
    );
    await t(`or x${k} authz`, () =>
      svc.authorize({
        actor_type: "User",
        actor_id: "u",
        action: "read",
        resource_type: "Doc",
        resource_id: "d",
      }),
    );
  }
if (which.includes("ids"))
  await t(`ids 70000`, () =>
    svc.evaluateQuery({
      predicate: ["allow", ["a", "b", "c"]],
      calls: [],
      constraints: {
        a: { type: "User", ids: ["u"] },
        b: { type: "String", ids: ["read"] },
        c: { type: "Doc", ids: Array.from({ length: 70000 }, (_, i) => `d${i}`) },
      },
    }),
  );
if (which.includes("ids"))
  await t(`res 70000`, () =>
    svc.authorizeResources({
      actor_type: "User",
      actor_id: "u",
      action: "read",
      resources: Array.from({ length: 70000 }, (_, i) => ({ type: "Doc", id: `d${i}` })),
    }),
  );
if (which.includes("del"))
  await t(`batch del 9`, () =>
    svc.batch([
      {
        deletes: [
          { predicate: "x", args: Array.from({ length: 9 }, () => ({ type: "Doc", id: "a" })) },
        ],
      },
    ]),
  );
if (which.includes("del"))
  await t(`batch ins 9`, () =>
    svc.batch([
      {
        inserts: [
          { predicate: "x", args: Array.from({ length: 9 }, () => ({ type: "Doc", id: "a" })) },
        ],
      },
    ]),
  );
process.exit(0);
