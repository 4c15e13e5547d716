/**
 * A cold Kysely instance (no driver, no connection) for the PostgreSQL dialect: it only
 * compiles statements to text. Other dialects would get their own instance beside this one.
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: the emitter's tables are generated, not a schema
export type AnyDatabase = any;

export const postgres: Kysely<AnyDatabase> = new Kysely<AnyDatabase>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
