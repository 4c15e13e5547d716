/**
 * `/list` page tokens: the query's hash, the last id returned and the page size, signed with
 * the store's secret so that a token cannot be forged or used for another query.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ApiError } from "../api/service.js";
import { tokenSecret } from "../preview/token.js";
import type { FactStore } from "../store/store.js";

interface PageToken {
  /** The hash of the list query (`queryHash`). */
  readonly q: string;
  /** The last id of the page. */
  readonly a: string;
  /** The page size. */
  readonly n: number;
}

export interface PageTokens {
  write(token: PageToken): Promise<string>;
  /** The token in `text`; a 400 when it is not one this store signed. */
  read(text: string): Promise<PageToken>;
}

/** A short hash of a list query's parts, the `q` of its tokens. */
export function queryHash(parts: readonly unknown[]): string {
  return createHmac("sha256", "polar-sql-list")
    .update(JSON.stringify(parts))
    .digest("base64url")
    .slice(0, 22);
}

export function pageTokens(store: FactStore): PageTokens {
  let secret: Buffer | null = null;
  async function key(): Promise<Buffer> {
    secret ??= await tokenSecret(store.db);
    return secret;
  }
  return {
    async write(token) {
      const payload = Buffer.from(JSON.stringify(token)).toString("base64url");
      const mac = createHmac("sha256", await key())
        .update(payload)
        .digest("base64url");
      return `${payload}.${mac}`;
    },
    async read(text) {
      const invalid = new ApiError(400, "`page_token` is not a valid page token");
      const [payload, mac, ...rest] = text.split(".");
      if (!payload || !mac || rest.length > 0) throw invalid;
      const expected = createHmac("sha256", await key())
        .update(payload)
        .digest();
      const given = Buffer.from(mac, "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
      const token = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as PageToken;
      if (typeof token.q !== "string" || typeof token.a !== "string" || !Number.isInteger(token.n))
        throw invalid;
      return token;
    },
  };
}
