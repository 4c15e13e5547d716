/** The dialects the compiler prints, by name. */
import { DIALECT_NAMES, type Dialect, type DialectName } from "./dialect.js";
import { postgres } from "./postgres.js";

const DIALECTS: Readonly<Record<DialectName, Dialect>> = { postgres };

export const DEFAULT_DIALECT: DialectName = "postgres";

/** A dialect name as a caller wrote it, or null when there is no such dialect. */
export function dialectNamed(name: string): Dialect | null {
  return (DIALECT_NAMES as readonly string[]).includes(name) ? DIALECTS[name as DialectName] : null;
}

export function dialectOf(name: DialectName = DEFAULT_DIALECT): Dialect {
  return DIALECTS[name];
}

/** `postgres, mysql, sqlite`: for messages naming the allowed values. */
export function dialectList(): string {
  return DIALECT_NAMES.map((name) => `\`${name}\``).join(", ");
}
