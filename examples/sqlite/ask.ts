/**
 * Local authorization in a SQLite application: the statements come from the library with
 * `dialect: "sqlite"` and run on the application's own database (better-sqlite3).
 *
 *   npx tsx examples/sqlite/ask.ts
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { authorizeQuery, checkPolicyOrThrow, listQuery } from "../../src/index.js";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export interface Answers {
  readonly annEditsRoadmap: boolean;
  readonly annReadsPriceList: boolean;
  readonly annDocuments: readonly string[];
  readonly bobDocuments: readonly string[];
}

/** Loads the example's tables into `file` (in memory by default) and asks. */
export async function ask(file = ":memory:"): Promise<Answers> {
  const program = checkPolicyOrThrow([
    { name: "policy.polar", text: await readFile(here("policy.polar"), "utf8") },
  ]);
  const data_bindings = await readFile(here("bindings.yaml"), "utf8");
  const db = new Database(file);
  try {
    db.exec(await readFile(here("schema.sql"), "utf8"));
    const allowed = (user: string, action: string, document: string) => {
      const query = {
        actor_type: "User",
        actor_id: user,
        action,
        resource_type: "Document",
        resource_id: document,
      };
      const { sql } = authorizeQuery(program, { query, data_bindings }, { dialect: "sqlite" });
      return (db.prepare(sql).get() as { allowed: number }).allowed === 1; // SQLite booleans are 0/1
    };
    const titles = (user: string) => {
      const { sql } = listQuery(
        program,
        {
          query: { actor_type: "User", actor_id: user, action: "read", resource_type: "Document" },
          column: "documents.id",
          data_bindings,
        },
        { dialect: "sqlite" },
      );
      const rows = db.prepare(`SELECT title FROM documents WHERE ${sql} ORDER BY id`).all();
      return (rows as { title: string }[]).map((row) => row.title);
    };
    return {
      annEditsRoadmap: allowed("ann", "edit", "4"),
      annReadsPriceList: allowed("ann", "read", "3"),
      annDocuments: titles("ann"),
      bobDocuments: titles("bob"),
    };
  } finally {
    db.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await ask());
}
