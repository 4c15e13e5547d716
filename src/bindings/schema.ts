/**
 * The shape of a data bindings document once read from YAML (docs/local-authorization.md#fact-signatures). Only the
 * shape: signatures, queries and SQL type names are checked by `parseDataBindings`.
 *
 * Zod's tree-shakable build (`zod/mini`): the playground bundles this file, and the full `zod`
 * brings about 450 KB of script (every locale) to its first visit (docs/playground.md). Only
 * the issues' codes and paths are read (src/bindings/parse.ts), never zod's messages.
 *
 *   dataBindingsDocumentSchema.parse({ facts: { "is_open(Ticket:_)": { query: "SELECT id FROM t" } } })
 */
import * as z from "zod/mini";

/** The value of one `facts` entry. */
export const bindingBodySchema = z.strictObject({ query: z.string() });

export const dataBindingsDocumentSchema = z.nullish(
  z.strictObject({
    facts: z.nullish(z.record(z.string(), bindingBodySchema)),
    sql_types: z.nullish(z.record(z.string(), z.string())),
    keys: z.nullish(
      z.record(z.string(), z.union([z.string(), z.array(z.string()).check(z.minLength(1))])),
    ),
  }),
);
