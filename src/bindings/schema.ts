/**
 * The shape of a data bindings document once read from YAML (docs/local-authorization.md#fact-signatures). Only the
 * shape: signatures, queries and SQL type names are checked by `parseDataBindings`.
 *
 *   dataBindingsDocumentSchema.parse({ facts: { "is_open(Ticket:_)": { query: "SELECT id FROM t" } } })
 */
import { z } from "zod";

/** The value of one `facts` entry. */
export const bindingBodySchema = z.strictObject({ query: z.string() });

export const dataBindingsDocumentSchema = z
  .strictObject({
    facts: z.record(z.string(), bindingBodySchema).nullish(),
    sql_types: z.record(z.string(), z.string()).nullish(),
    keys: z.record(z.string(), z.union([z.string(), z.array(z.string()).min(1)])).nullish(),
  })
  .nullish();

export type DataBindingsDocument = z.infer<typeof dataBindingsDocumentSchema>;
