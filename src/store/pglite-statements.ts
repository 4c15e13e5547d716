/**
 * Prepared statements on embedded PGlite through the extended protocol: a statement is parsed
 * once under a name, and each use sends only Bind, Describe, Execute and Sync, in one call into
 * the database. Against `EXECUTE name('…')` through the simple protocol this saves parsing the
 * EXECUTE text and a third to a half of the per-call cost of a point question
 * (bench/RESULTS.md, "Speed under load"). Rows are typed by PGlite's own parsers, as `query`
 * types them.
 */
import { type PGlite, parse, protocol, types } from "@electric-sql/pglite";
import { preparedNames } from "./executor.js";

/** Named statements kept; the least recently used one is closed past this. */
const NAMED_STATEMENTS = 200;

type Message = Uint8Array;

function concat(messages: readonly Message[]): Message {
  const out = new Uint8Array(messages.reduce((n, m) => n + m.length, 0));
  let at = 0;
  for (const message of messages) {
    out.set(message, at);
    at += message.length;
  }
  return out;
}

/**
 * A runner of prepared statements on `db`: `$n` parameters are sent as text, and each `$n`
 * must appear as `cast($n as <type>)` so that parsing infers its type from the text.
 */
export function pgliteStatements(db: PGlite) {
  const { serialize } = protocol;

  /**
   * One exchange, alone on the database: after any transaction in progress (as `query` waits
   * for one), never inside it. The Sync at the end leaves the session ready after an error.
   */
  const exchange = (messages: readonly Message[]) =>
    db._runExclusiveTransaction(() =>
      db._runExclusiveQuery(() =>
        db.execProtocolStream(concat([...messages, serialize.sync()]), {}),
      ),
    );

  const nameOf = preparedNames({
    prefix: "polar_p",
    limit: NAMED_STATEMENTS,
    prepare: (name, sql) => exchange([serialize.parse({ name, text: sql, types: [] })]),
    drop: (name) => exchange([serialize.close({ type: "S", name })]),
  });

  return async <Row>(sql: string, params: readonly string[]): Promise<Row[]> => {
    const name = await nameOf(sql);
    const messages = await exchange([
      serialize.bind({ statement: name, values: [...params] }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
    ]);
    return (parse.parseResults(messages, types.parsers)[0]?.rows ?? []) as Row[];
  };
}
