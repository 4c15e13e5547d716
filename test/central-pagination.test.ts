/**
 * `/list` pagination (issue 5): walking the pages of a 25,000+ id answer returns every id
 * exactly once, in code-point order; page sizes below 10000 and forged, tampered or foreign
 * tokens are refused with 400.
 */
import { readFileSync } from "node:fs";
import { beforeAll, expect, it } from "vitest";
import { ApiError, type PolarService } from "../src/api/service.js";
import { compareCodePoints } from "../src/core/value.js";
import { describeServiceEngines } from "./support/central-services.js";

const RBAC = readFileSync(
  new URL("../examples/reference/12-1-rbac.polar", import.meta.url),
  "utf8",
);

/** Ids whose code-point order differs from numeric and from UTF-16 order. */
const TRICKY = ["Z", "a", "a b", "it's", "é", "\\", "ﬀ", "😀", "--;", "w1 ", "W"];
const IDS = [...Array.from({ length: 25_000 }, (_, n) => `w${n}`), ...TRICKY];

const question = {
  actor_type: "User",
  actor_id: "ada",
  action: "read",
  resource_type: "Workspace",
  context_facts: [],
};

interface Page {
  results: string[];
  next_page_token?: string;
}

async function page(service: PolarService, body: Record<string, unknown>): Promise<Page> {
  return (await service.list({ ...question, ...body })).body as Page;
}

async function refusal(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (cause) {
    if (cause instanceof ApiError) return cause;
    throw cause;
  }
  throw new Error("the call was not refused");
}

/** Replaces the signed payload of a token, keeping its signature. */
function tamper(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [payload, mac] = token.split(".");
  const decoded = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
  change(decoded);
  return `${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${mac}`;
}

describeServiceEngines({}, "list pagination on $name", (engine) => {
  let service: PolarService;
  beforeAll(async () => {
    service = await engine.fresh();
    await service.postPolicy({ src: RBAC, filename: "rbac.polar" }, {});
    const grant = (id: string) => ({
      predicate: "has_role",
      args: [
        { type: "User", id: "ada" },
        { type: "String", id: "viewer" },
        { type: "Workspace", id },
      ],
    });
    await service.batch([{ inserts: IDS.map(grant) }]);
  });

  it("walking the pages returns every id exactly once, in code-point order", async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let reply = await page(service, { page_size: 10_000 });
    for (;;) {
      seen.push(...reply.results);
      sizes.push(reply.results.length);
      if (!reply.next_page_token) break;
      // A follow-up ignores page_size: the first request fixed it.
      reply = await page(service, { page_token: reply.next_page_token, page_size: 1 });
    }
    expect(sizes).toEqual([10_000, 10_000, IDS.length - 20_000]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...IDS].sort(compareCodePoints));
  });

  it("a larger page size gives larger pages, and one page when it covers everything", async () => {
    const first = await page(service, { page_size: 20_000 });
    expect(first.results).toHaveLength(20_000);
    const rest = await page(service, { page_token: first.next_page_token });
    expect(Object.keys(rest)).toEqual(["results"]);
    expect(rest.results).toHaveLength(IDS.length - 20_000);
    const whole = await page(service, { page_size: 1_000_000 });
    expect(whole.results).toHaveLength(IDS.length);
    expect(whole).not.toHaveProperty("next_page_token");
  });

  it("a token is stable: the same token gives the same page, writes do not repeat ids", async () => {
    const first = await page(service, { page_size: 10_000 });
    const token = first.next_page_token!;
    const second = await page(service, { page_token: token });
    expect(await page(service, { page_token: token })).toEqual(second);
    // A grant that sorts before the position of the token does not shift later pages.
    await service.batch([
      {
        inserts: [
          {
            predicate: "has_role",
            args: [
              { type: "User", id: "ada" },
              { type: "String", id: "owner" },
              { type: "Workspace", id: "0-new" },
            ],
          },
        ],
      },
    ]);
    expect(await page(service, { page_token: token })).toEqual(second);
    expect(second.results.some((id) => first.results.includes(id))).toBe(false);
  });

  it("refuses a page size below 10000 and a missing or fractional one", async () => {
    const small = await refusal(page(service, { page_size: 9_999 }));
    expect(small.status).toBe(400);
    expect(small.message).toBe("`page_size` must be at least 10000");
    expect((await refusal(page(service, {}))).status).toBe(400);
    expect((await refusal(page(service, { page_size: 10_000.5 }))).status).toBe(400);
    expect((await refusal(page(service, { page_size: "10000" }))).status).toBe(400);
  });

  it("refuses forged, tampered and foreign tokens", async () => {
    const { next_page_token } = await page(service, { page_size: 10_000 });
    const token = next_page_token!;
    const forged = [
      "not-a-token",
      "",
      `${token}.extra`,
      tamper(token, (p) => {
        p.a = "w0";
      }),
      tamper(token, (p) => {
        p.n = 1;
      }),
      `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`,
    ];
    for (const bad of forged) {
      const refused = await refusal(page(service, { page_token: bad }));
      expect(refused.status, bad).toBe(400);
    }
    // A valid token of another question.
    for (const other of [{ action: "write" }, { actor_id: "bo" }, { resource_type: "Team" }]) {
      const refused = await refusal(service.list({ ...question, ...other, page_token: token }));
      expect(refused.status).toBe(400);
      expect(refused.message).toContain("`page_token`");
    }
  });

  it("a token of another store is refused", async () => {
    const elsewhere = await engine.fresh();
    await elsewhere.postPolicy({ src: RBAC, filename: "rbac.polar" }, {});
    const { next_page_token } = await page(service, { page_size: 10_000 });
    const refused = await refusal(elsewhere.list({ ...question, page_token: next_page_token }));
    expect(refused.status).toBe(400);
  });
});
