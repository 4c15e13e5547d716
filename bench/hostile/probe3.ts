import { createService } from "../../src/api/central.js";

const url = process.env.DATABASE_URL;
const svc = await createService(url ? { databaseUrl: url } : {});
const src = `# a comment with NUL \u0000 and \u0001 and \u0007\nactor User {}\nresource Doc { permissions = ["read"]; }\n`;
console.log(await svc.postPolicy({ src, filename: "p\u0000\u0001.polar" }, {}));
const got = (await svc.getPolicy({})).body as { policy: { src: string; filename: string } };
console.log(got.policy.src === src, got.policy.filename === "p\u0000\u0001.polar");
for (const body of [
  {
    actor_type: "User",
    actor_id: "u\u0000",
    action: "read",
    resource_type: "Doc",
    resource_id: "d",
  },
]) {
  try {
    console.log(await svc.authorize(body));
  } catch (e) {
    console.log("ERR", (e as { status: number }).status, (e as Error).message);
  }
}
try {
  console.log(
    await svc.evaluateQuery({
      predicate: ["allow", ["a", "b", "c"]],
      calls: [],
      constraints: {
        a: { type: "User", ids: ["u\u0000"] },
        b: { type: "String", ids: ["read"] },
        c: { type: "Doc", ids: ["d\u0000", "x"] },
      },
    }),
  );
} catch (e) {
  console.log("ERR", (e as { status: number }).status, (e as Error).message);
}
try {
  console.log(
    await svc.authorizeResources({
      actor_type: "User",
      actor_id: "u",
      action: "read",
      resources: [{ type: "Doc", id: "a\u0000" }],
    }),
  );
} catch (e) {
  console.log("ERR", (e as { status: number }).status, (e as Error).message);
}
try {
  console.log(
    await svc.list({
      actor_type: "User",
      actor_id: "u\u0000",
      action: "read",
      resource_type: "Doc",
      page_size: 10000,
    }),
  );
} catch (e) {
  console.log("ERR", (e as { status: number }).status, (e as Error).message);
}
try {
  console.log(
    await svc.batch([
      { deletes: [{ predicate: "has_role", args: [{ type: "Doc", id: "a\u0000" }] }] },
    ]),
  );
} catch (e) {
  console.log("ERR", (e as { status: number }).status, (e as Error).message);
}
try {
  console.log(await svc.getFacts(new Map([["predicate", "x\u0000"]])));
} catch (e) {
  console.log("ERR", (e as { status: number }).status, (e as Error).message);
}
await svc.close();
const svc2 = await createService({});
await svc2.postPolicy(
  {
    src: `actor User {}\nresource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }\n`,
    filename: null,
  },
  {},
);
const bindings = `facts:\n  "has_role(User:_, String:_, Doc:_)":\n    query: SELECT u, r, d FROM roles\n`;
for (const q of [
  {
    actor_type: "User",
    actor_id: "u\u0000",
    action: "read",
    resource_type: "Doc",
    resource_id: "d",
  },
  {
    actor_type: "User",
    actor_id: "u",
    action: "re\u0000ad",
    resource_type: "Doc",
    resource_id: "d\u0000",
  },
  {
    actor_type: "User",
    actor_id: "u",
    action: "read",
    resource_type: "Doc",
    resource_id: "d",
    context_facts: [
      {
        predicate: "has_role",
        args: [
          { type: "User", id: "u\u0000" },
          { type: "String", id: "viewer" },
          { type: "Doc", id: "d" },
        ],
      },
    ],
  },
]) {
  try {
    console.log(
      JSON.stringify(await svc2.authorizeQuery({ query: q, data_bindings: bindings })).slice(
        0,
        300,
      ),
    );
  } catch (e) {
    console.log("ERR", (e as { status: number }).status, (e as Error).message);
  }
  try {
    console.log(
      JSON.stringify(
        await svc2.authorizeQuery({ query: q, data_bindings: bindings + "\u0000" }),
      ).slice(0, 300),
    );
  } catch (e) {
    console.log("ERR", (e as { status: number }).status, (e as Error).message);
  }
}
await svc2.close();
