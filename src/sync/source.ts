/**
 * Reading the facts a sync signature wants from the application's PostgreSQL database: one
 * query per signature, its columns filling the signature's `_` slots in order. Every column is
 * read as text, so ids keep exactly what PostgreSQL prints (no driver conversions).
 */
import pg from "pg";
import type { BindingSlot } from "../bindings/types.js";
import { canonicalValue } from "../check/facts.js";
import type { GroundFact, Value } from "../core/value.js";
import { tick } from "../source/diagnostic.js";
import type { SyncDb, SyncedSignature } from "./config.js";

/** A failure reading a source; the message names the file and line, never a connection string. */
export class SyncSourceError extends Error {
  override readonly name = "SyncSourceError";
}

/** Every column as its text form. */
const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

export interface SourceConnections {
  /** The facts a signature's query yields, canonical, without repeats. */
  facts(signature: SyncedSignature): Promise<GroundFact[]>;
  close(): Promise<void>;
}

/**
 * Opens connections lazily, one per db, and reads signatures through them.
 *
 *   const sources = openSources(config.dbs);
 *   const wanted = await sources.facts(config.facts[0]!);
 *   await sources.close();
 */
export function openSources(dbs: ReadonlyMap<string, SyncDb>): SourceConnections {
  const clients = new Map<string, Promise<pg.Client>>();
  async function client(db: SyncDb): Promise<pg.Client> {
    let opened = clients.get(db.name);
    if (!opened) {
      opened = (async () => {
        const connection = new pg.Client({ connectionString: db.connectionString });
        // A broken connection after the queries must not crash the process.
        connection.on("error", () => {});
        try {
          await connection.connect();
        } catch (cause) {
          throw new SyncSourceError(
            `${db.where}: cannot connect to db ${tick(db.name)}: ${redact((cause as Error).message, db.connectionString)}`,
          );
        }
        // A sync only reads the application's database.
        await connection.query("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
        return connection;
      })();
      clients.set(db.name, opened);
    }
    return opened;
  }
  return {
    async facts(signature) {
      const db = dbs.get(signature.db)!;
      const connection = await client(db);
      let rows: unknown[][];
      try {
        const result = await connection.query({
          text: signature.query,
          rowMode: "array",
          types: TEXT_TYPES,
        });
        rows = result.rows;
        const expected = signature.slots.filter((slot) => slot.kind === "column").length;
        if (result.fields.length !== expected) {
          throw new SyncSourceError(
            `${signature.where}: the query of ${tick(signature.signature)} returns ${result.fields.length} column${result.fields.length === 1 ? "" : "s"}; its signature has ${expected} \`_\``,
          );
        }
      } catch (cause) {
        if (cause instanceof SyncSourceError) throw cause;
        throw new SyncSourceError(
          `${signature.where}: the query of ${tick(signature.signature)} failed: ${redact((cause as Error).message, db.connectionString)}`,
        );
      }
      const facts = new Map<string, GroundFact>();
      rows.forEach((row, index) => {
        const fact = rowFact(signature, row as (string | null)[], index + 1);
        facts.set(JSON.stringify(fact.args), fact);
      });
      return [...facts.values()];
    },
    async close() {
      for (const opened of clients.values()) {
        const connection = await opened.catch(() => null);
        await connection?.end().catch(() => {});
      }
    },
  };
}

function rowFact(
  signature: SyncedSignature,
  row: readonly (string | null)[],
  number: number,
): GroundFact {
  let column = 0;
  const args = signature.slots.map((slot: BindingSlot): Value => {
    if (slot.kind === "constant") return { type: slot.type, id: slot.value };
    const text = row[column++];
    if (text === null || text === undefined) {
      throw new SyncSourceError(
        `${signature.where}: row ${number} of the query of ${tick(signature.signature)} has NULL in column ${column}; filter such rows out in the query`,
      );
    }
    return canonicalValue({
      type: slot.type,
      id: slot.type === "Boolean" ? booleanId(text) : text,
    });
  });
  return { predicate: signature.predicate, args };
}

/** PostgreSQL prints booleans as `t` and `f`. */
function booleanId(text: string): string {
  return text === "t" ? "true" : text === "f" ? "false" : text;
}

/**
 * A message with the connection string and its password removed.
 *
 *   redact("bad postgres://u:pw@h/db", "postgres://u:pw@h/db"); // "bad <connection string>"
 */
export function redact(message: string, connectionString: string): string {
  let safe = message.split(connectionString).join("<connection string>");
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    if (password) safe = safe.split(password).join("<password>");
  } catch {
    // Not a URL: only the whole string is removed.
  }
  return safe;
}
