/**
 * Local authorization in a MySQL / MariaDB application: the statements come from the library
 * with `dialect: "mysql"` and run on the application's own connection (mysql2).
 *
 *   npx tsx examples/mysql/ask.ts   # needs MariaDB or MySQL on 127.0.0.1:3306, user root
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import mysql from "mysql2/promise";
import { authorizeQuery, checkPolicyOrThrow, listQuery } from "../../src/index.js";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export interface Answers {
  readonly annEditsRoadmap: boolean;
  readonly annReadsPriceList: boolean;
  readonly annDocuments: readonly string[];
  readonly bobDocuments: readonly string[];
}

/** Where the server is: MariaDB or MySQL on 127.0.0.1:3306, user root, by default. */
export interface Server {
  readonly host: string;
  readonly port?: number;
  readonly user: string;
  readonly password?: string;
}

/** Creates the example's tables in a database of its own, asks, and drops it. */
export async function ask(
  database = "polar_example_mysql",
  server: Server = { host: "127.0.0.1", user: "root" },
): Promise<Answers> {
  const program = checkPolicyOrThrow([
    { name: "policy.polar", text: await readFile(here("policy.polar"), "utf8") },
  ]);
  const data_bindings = await readFile(here("bindings.yaml"), "utf8");
  const connection = await mysql.createConnection({ ...server, multipleStatements: true });
  try {
    await connection.query(
      `DROP DATABASE IF EXISTS ${database}; CREATE DATABASE ${database}; USE ${database}`,
    );
    await connection.query(await readFile(here("schema.sql"), "utf8"));
    const allowed = async (user: string, action: string, document: string) => {
      const query = {
        actor_type: "User",
        actor_id: user,
        action,
        resource_type: "Document",
        resource_id: document,
      };
      const { sql } = authorizeQuery(program, { query, data_bindings }, { dialect: "mysql" });
      const [rows] = await connection.query(sql);
      return Number((rows as { allowed: number }[])[0]!.allowed) === 1; // MySQL booleans are 0/1
    };
    const titles = async (user: string) => {
      const { sql } = listQuery(
        program,
        {
          query: { actor_type: "User", actor_id: user, action: "read", resource_type: "Document" },
          column: "documents.id",
          data_bindings,
        },
        { dialect: "mysql" },
      );
      const [rows] = await connection.query(`SELECT title FROM documents WHERE ${sql} ORDER BY id`);
      return (rows as { title: string }[]).map((row) => row.title);
    };
    return {
      annEditsRoadmap: await allowed("ann", "edit", "4"),
      // `Ann ` holds the sales role; on utf8mb4_general_ci a plain `=` would give it to `ann`.
      annReadsPriceList: await allowed("ann", "read", "3"),
      annDocuments: await titles("ann"),
      bobDocuments: await titles("bob"),
    };
  } finally {
    await connection.query(`DROP DATABASE IF EXISTS ${database}`);
    await connection.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await ask());
}
