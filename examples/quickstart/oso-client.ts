/**
 * The same questions through the HTTP service, asked with the official `oso-cloud` client.
 * Talks to POLAR_SQL_URL with POLAR_SQL_API_KEY (for example a server started by `npm start`);
 * without them it starts a server in this process on an ephemeral port.
 *
 *   npx tsx examples/quickstart/oso-client.ts
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { Oso } from "oso-cloud";
import { silentLogger } from "../../src/http/logger.js";
import { createApp, createService, startServer } from "../../src/index.js";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

export interface Answers {
  readonly aliceMayDelete: boolean;
  readonly bobRepositories: string[];
  readonly carolRepositoryActions: string[];
  readonly bobIssueTitles: string[];
}

/**
 * The answers to the quick start's questions. `db` holds the quick start's tables (schema.sql)
 * for the local check; without it a fresh PGlite is created and loaded.
 */
export async function askTheService(db?: PGlite): Promise<Answers> {
  let url = process.env.POLAR_SQL_URL;
  let key = process.env.POLAR_SQL_API_KEY;
  let stop = async () => {};
  if (!url || !key) {
    const service = await createService();
    key = "example-key";
    const server = await startServer({
      app: createApp({ service, apiKeys: [key], logger: silentLogger }),
      port: 0,
      host: "127.0.0.1",
    });
    url = server.url;
    stop = async () => {
      await server.close();
      await service.close();
    };
  }
  try {
    const oso = new Oso(url, key, { dataBindings: here("bindings.yaml") });
    await oso.policy(await readFile(here("policy.polar"), "utf8"));
    const facts = JSON.parse(await readFile(here("facts.json"), "utf8"));
    await oso.batch((tx) => {
      for (const fact of facts) {
        tx.insert([fact.predicate, ...fact.args] as Parameters<typeof tx.insert>[0]);
      }
    });

    const alice = { type: "User", id: "alice" };
    const bob = { type: "User", id: "bob" };
    const carol = { type: "User", id: "carol" };
    const aliceMayDelete = await oso.authorize(alice, "delete", { type: "Repository", id: "1" });
    const bobRepositories = await oso.list(bob, "read", "Repository");
    const carolRepositoryActions = await oso.actions(carol, { type: "Repository", id: "3" });

    // Local check: the service returns SQL; the application runs it on its own database.
    const filter = await oso.listLocal(bob, "read", "Issue", "issues.id");
    const own = db ? null : await PGlite.create();
    try {
      if (own) await own.exec(await readFile(here("schema.sql"), "utf8"));
      const rows = await (db ?? own!).query<{ title: string }>(
        `SELECT title FROM issues WHERE ${filter} ORDER BY id`,
      );
      return {
        aliceMayDelete,
        bobRepositories,
        carolRepositoryActions,
        bobIssueTitles: rows.rows.map((r) => r.title),
      };
    } finally {
      await own?.close();
    }
  } finally {
    await stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await askTheService());
}
