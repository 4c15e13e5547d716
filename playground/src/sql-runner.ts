/**
 * Runs SQL on PGlite in the page. Loaded on the first run (a separate chunk with the WebAssembly
 * files beside it, from the page's own origin); one database per schema text, made afresh when
 * the schema changes.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { keepLeadingByteOrderMarks } from "../../src/store/pglite-text.js";

/**
 * The hashed names of PGlite's files beside this chunk, set by src/cli/playground-build.ts
 * (esbuild's `define`): PGlite would otherwise fetch them under their plain names.
 */
declare const PGLITE_FILES: { wasm: string; data: string; initdb: string };

let current: { schema: string; db: Promise<PGlite> } | null = null;
let files: Promise<PGliteOptions> | null = null;

/** PGlite's WebAssembly modules and file system bundle, fetched once, on the first run. */
function pgliteFiles(): Promise<PGliteOptions> {
  files ??= (async () => {
    const beside = (name: string) => fetch(new URL(name, import.meta.url));
    const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
      WebAssembly.compileStreaming(beside(PGLITE_FILES.wasm)),
      WebAssembly.compileStreaming(beside(PGLITE_FILES.initdb)),
      beside(PGLITE_FILES.data).then((response) => response.blob()),
    ]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle };
  })();
  // A failed download is not kept: the next run tries again.
  files.catch(() => {
    files = null;
  });
  return files;
}

async function open(schema: string): Promise<PGlite> {
  // As on the embedded store: a text that begins with U+FEFF is read back whole.
  keepLeadingByteOrderMarks();
  const db = await PGlite.create(await pgliteFiles());
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
