/**
 * Page tokens of a preview: where the next page starts, signed with the store's token secret
 * (the one `/api/list` signs with) so that a client cannot forge a position, and tied to the
 * preview it came from (both policies and the context facts) so that it cannot be replayed
 * on another.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { sql } from "kysely";
import { run } from "../store/compile.js";
import type { SqlExecutor } from "../store/executor.js";
import { META_TABLE } from "../store/schema.js";
import { PreviewError } from "./errors.js";

/** The position after the last triple of a page. */
export interface PreviewPosition {
  /** The preview the token belongs to (`previewHash`). */
  readonly preview: string;
  /** The part (change and entry) of the last triple. */
  readonly part: number;
  readonly resource: string;
  readonly actor: string;
  readonly pageSize: number;
}

/** The store's secret for page tokens (of `/list` too: src/service/page-tokens.ts). */
export async function tokenSecret(db: SqlExecutor): Promise<Buffer> {
  const [row] = await run(
    db,
    sql<{ value: string }>`SELECT value FROM ${sql.table(META_TABLE)} WHERE key = 'token_secret'`,
  );
  return Buffer.from(row!.value, "utf8");
}

/** A digest of what a preview compares: equal only for the same policies and context facts. */
export function previewHash(parts: unknown): string {
  return createHmac("sha256", "polar-sql-preview")
    .update(JSON.stringify(parts))
    .digest("base64url")
    .slice(0, 22);
}

export function writePageToken(position: PreviewPosition, secret: Buffer): string {
  const { preview, part, resource, actor, pageSize } = position;
  const payload = Buffer.from(JSON.stringify([preview, part, resource, actor, pageSize])).toString(
    "base64url",
  );
  return `${payload}.${createHmac("sha256", secret).update(payload).digest("base64url")}`;
}

/** The position a token names; refuses a token that was not signed here or is of another preview. */
export function readPageToken(text: string, secret: Buffer, preview: string): PreviewPosition {
  const invalid = new PreviewError("invalid-page-token", "`page_token` is not a valid page token");
  const [payload, mac, ...rest] = text.split(".");
  if (!payload || !mac || rest.length > 0) throw invalid;
  const expected = createHmac("sha256", secret).update(payload).digest();
  const given = Buffer.from(mac, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  const fields: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  if (!Array.isArray(fields) || fields.length !== 5) throw invalid;
  const [hash, part, resource, actor, pageSize] = fields;
  if (
    typeof hash !== "string" ||
    !Number.isSafeInteger(part) ||
    typeof resource !== "string" ||
    typeof actor !== "string" ||
    !Number.isSafeInteger(pageSize)
  ) {
    throw invalid;
  }
  if (hash !== preview) {
    throw new PreviewError(
      "foreign-page-token",
      "`page_token` belongs to a different preview (another policy, candidate or context facts)",
    );
  }
  return { preview: hash, part, resource, actor, pageSize };
}
