/**
 * `POST /api/policy/preview` over HTTP on every service engine: the triples equal the
 * library's (and so the brute force's, test/preview.test.ts), pages follow tokens, the active
 * policy is untouched, and bad candidates, tokens and bodies are clear 400s.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { bruteForce, program, tripleKey } from "./preview-support.js";
import { describeServiceEngines } from "./support/central-services.js";

const KEY = "preview-key";
const HEADERS = { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` };

const ACTIVE = `actor User {}
resource Repo {
  roles = ["reader", "admin"];
  permissions = ["read", "push"];
  "read" if "reader";
  "push" if "admin";
  "reader" if "admin";
}
allow(actor, action, resource) if has_permission(actor, action, resource);
allow(_: User, "read", r: Repo) if is_public(r);
`;
const CANDIDATE = ACTIVE.replace(`"push" if "admin";`, `"push" if "reader";`).replace(
  `allow(_: User, "read", r: Repo) if is_public(r);`,
  "",
);
const fact = (predicate: string, ...args: [string, string][]) => ({
  predicate,
  args: args.map(([type, id]) => ({ type, id })),
});
const FACTS = [
  fact("has_role", ["User", "a"], ["String", "admin"], ["Repo", "r1"]),
  fact("has_role", ["User", "b"], ["String", "reader"], ["Repo", "r1"]),
  fact("has_role", ["User", "c"], ["String", "reader"], ["Repo", "r2"]),
  fact("is_public", ["Repo", "r2"]),
];

interface PreviewBody {
  gained: {
    actor: { type: string; id: string };
    action: string;
    resource: { type: string; id: string };
  }[];
  lost: PreviewBody["gained"];
  counts: Record<string, Record<string, { gained: number; lost: number }>>;
  tests: unknown;
  next_page_token?: string;
  message?: string;
  errors?: { message: string }[];
}

describeServiceEngines({ workers: 0 }, "POST /api/policy/preview on $name", (engine) => {
  /** The file's service on the engine with the active policy and FACTS, and nothing else. */
  async function setup() {
    const service = await engine.service();
    await service.postPolicy({ src: ACTIVE, filename: "active.polar" }, {});
    await service.clearData();
    await service.batch([{ inserts: FACTS }]);
    const app = createApp({ service, apiKeys: [KEY], logger: silentLogger });
    const preview = async (body: unknown) => {
      const res = await app.request("/api/policy/preview", {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as PreviewBody };
    };
    return { service, preview };
  }

  it("answers the brute-force difference and leaves the active policy alone", async () => {
    const { service, preview } = await setup();
    const context = [fact("has_role", ["User", "d"], ["String", "reader"], ["Repo", "r1"])];
    const { status, body } = await preview({
      src: CANDIDATE,
      filename: "candidate.polar",
      context_facts: context,
    });
    expect(status).toBe(200);
    const expected = bruteForce(program(ACTIVE), program(CANDIDATE), [...FACTS, ...context]);
    expect(body.gained.map(tripleKey).sort()).toEqual(expected.gained);
    expect(body.lost.map(tripleKey).sort()).toEqual(expected.lost);
    expect(expected.gained.length).toBeGreaterThan(0);
    expect(expected.lost.length).toBeGreaterThan(0);
    expect(body.counts.Repo!.push).toEqual({ gained: 3, lost: 0 });
    expect(body.next_page_token).toBeUndefined();
    const policy = await service.getPolicy({});
    expect(policy.body).toEqual({ policy: { filename: "active.polar", src: ACTIVE } });
  });

  it("pages through every triple once with next_page_token", async () => {
    const { preview } = await setup();
    const whole = (await preview({ src: CANDIDATE, filename: "c.polar" })).body;
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const { status, body } = await preview({
        src: CANDIDATE,
        filename: "c.polar",
        page_size: 2,
        ...(token && { page_token: token }),
      });
      expect(status).toBe(200);
      seen.push(...body.gained.map(tripleKey), ...body.lost.map(tripleKey));
      token = body.next_page_token;
    } while (token);
    expect(seen).toEqual([...whole.gained.map(tripleKey), ...whole.lost.map(tripleKey)]);
  });

  it("refuses a candidate that does not check with its diagnostics", async () => {
    const { preview } = await setup();
    const { status, body } = await preview({
      src: `${CANDIDATE}\nresource Doc { permissions = ["read"]; "read" if "editr"; }`,
      filename: "broken.polar",
    });
    expect(status).toBe(400);
    expect(body.message).toMatch(/^broken\.polar:\d+:\d+: .*editr/);
    expect(body.errors!.length).toBeGreaterThan(0);
  });

  it("refuses a forged page token, a bad page size and a bad body", async () => {
    const { preview } = await setup();
    const forged = await preview({ src: CANDIDATE, page_token: "eyJ4Ijox.fake" });
    expect(forged).toMatchObject({ status: 400, body: { message: /not a valid page token/ } });
    const size = await preview({ src: CANDIDATE, page_size: 0 });
    expect(size).toMatchObject({ status: 400, body: { message: /page_size/ } });
    const body = await preview({ filename: "x.polar" });
    expect(body).toMatchObject({ status: 400, body: { message: /src/ } });
  });

  it("refuses a token of another candidate", async () => {
    const { preview } = await setup();
    const first = await preview({ src: CANDIDATE, page_size: 1 });
    const token = first.body.next_page_token!;
    const other = await preview({ src: `${CANDIDATE}\n# changed`, page_token: token });
    expect(other).toMatchObject({ status: 400, body: { message: /different preview/ } });
  });
});

describe("the route", () => {
  it("is listed in the OpenAPI document", async () => {
    const { ROUTES } = await import("../src/http/routes.js");
    expect(ROUTES.some((r) => r.method === "POST" && r.path === "/policy/preview")).toBe(true);
  });
});
