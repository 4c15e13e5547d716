/**
 * Runs SQL on PGlite in the page. Loaded on the first run (a separate chunk with the WebAssembly
 * files beside it, from the page's own origin); one database per schema text, made afresh when
 * the schema changes.
 */
import { PGlite } from "@electric-sql/pglite";

let current: { schema: string; db: Promise<PGlite> } | null = null;

async function open(schema: string): Promise<PGlite> {
  const db = await PGlite.create();
  await db.exec(schema);
  return db;
}

/** The rows of `sql` over a database made by `schema`. */
export async function runSql(schema: string, sql: string): Promise<Record<string, unknown>[]> {
  if (current?.schema !== schema) {
    const previous = current;
    current = { schema, db: open(schema) };
    // A failed schema is not kept: the next run tries again.
    current.db.catch(() => {
      if (current?.schema === schema) current = null;
    });
    previous?.db.then((db) => db.close()).catch(() => {});
  }
  const db = await current.db;
  const result = await db.query<Record<string, unknown>>(sql);
  return result.rows;
}
