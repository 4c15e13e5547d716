/** The dialects the compiler prints, by name: adding one is a file and a line here. */
import type { Dialect } from "./dialect.js";
import { mysql } from "./mysql.js";
import { postgres } from "./postgres.js";
import { sqlite } from "./sqlite.js";

const DIALECTS = { postgres, mysql, sqlite } as const satisfies Record<string, Dialect>;

export type DialectName = keyof typeof DIALECTS;
export const DIALECT_NAMES = Object.keys(DIALECTS) as readonly DialectName[];
export const DEFAULT_DIALECT: DialectName = "postgres";

/** A dialect by the name a caller wrote, or null when there is no such dialect. */
export function dialectNamed(name: string): Dialect | null {
  return Object.hasOwn(DIALECTS, name) ? DIALECTS[name as DialectName] : null;
}

/** `` `postgres`, `mysql`, `sqlite` ``: the allowed names, for messages. */
export function dialectList(): string {
  return DIALECT_NAMES.map((name) => `\`${name}\``).join(", ");
}
