/**
 * The dialects, by the names callers write. A dialect is its folder (src/dialects/<name>/) and
 * its line in `REGISTERED`; every name list of the project derives from this one
 * (docs/architecture.md, "Adding a dialect").
 */
import type { Dialect } from "./dialect.js";
import { mysql } from "./mysql/index.js";
import { postgres } from "./postgres/index.js";
import { sqlite } from "./sqlite/index.js";

const REGISTERED = { postgres, mysql, sqlite };

export type DialectName = keyof typeof REGISTERED;

/** Every dialect under its name: one whose `name` is not its key here does not compile. */
export const DIALECTS: { readonly [Name in DialectName]: Dialect<Name> } = REGISTERED;

export const DEFAULT_DIALECT: DialectName = "postgres";

/** True when `name` is a registered dialect's: names from users are read through this. */
export function isDialectName(name: string): name is DialectName {
  return Object.hasOwn(DIALECTS, name);
}

/** The registered names, in registry order. */
export const DIALECT_NAMES: readonly DialectName[] = Object.keys(DIALECTS).filter(isDialectName);

/** A dialect by the name a caller wrote, or null when there is no such dialect. */
export function dialectNamed(name: string): Dialect<DialectName> | null {
  return isDialectName(name) ? DIALECTS[name] : null;
}

/** `` `postgres`, … ``: the allowed names, for messages. */
export function dialectList(): string {
  return DIALECT_NAMES.map((name) => `\`${name}\``).join(", ");
}

/**
 * What the `allowed` column holds on each engine, as its usual driver returns it
 * (`truth` of each dialect): `boolean`, or `0 | 1` where the engine has no booleans.
 */
export type AllowedValues = {
  readonly [Name in DialectName]: (typeof REGISTERED)[Name]["truth"] extends "booleans"
    ? boolean
    : 0 | 1;
};
