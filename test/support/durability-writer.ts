/**
 * A write load for the durability test, run as a child process that the test kills with
 * SIGKILL. It opens the store (a PGlite data directory, `sqlite:<directory>` for the SQLite
 * store, or a PostgreSQL URL), then applies
 * batches forever. Batch `<round>-<n>` inserts `FACTS` facts `tag(Batch{"<round>-<n>"},
 * Item{"<k>"})` split over three changesets, and deletes a fact that the batch itself inserted
 * first. After `applyBatch` resolves it prints `ack <round>-<n>`; stdout to a pipe is
 * synchronous on Linux, so a printed ack was acknowledged.
 *
 *   node --import tsx test/support/durability-writer.ts /tmp/data r0 200
 */
import { openStore } from "../../src/store/store.js";

const [target, round, count] = process.argv.slice(2);
if (!target || !round) {
  process.stderr.write(
    "usage: durability-writer <data dir | sqlite:<dir> | postgres url> <round> [facts]\n",
  );
  process.exit(2);
}
const FACTS = Number(count ?? 200);

const store = await openStore(
  target.startsWith("postgres")
    ? { databaseUrl: target }
    : target.startsWith("sqlite:")
      ? { embedded: "sqlite", dataDir: target.slice("sqlite:".length) }
      : { embedded: "pglite", dataDir: target },
);
process.stdout.write("ready\n");

const tag = (batch: string, item: string) => ({
  predicate: "tag",
  args: [
    { type: "Batch", id: batch },
    { type: "Item", id: item },
  ],
});

for (let n = 0; ; n++) {
  const batch = `${round}-${n}`;
  const items = Array.from({ length: FACTS }, (_, k) => tag(batch, String(k)));
  const third = Math.ceil(FACTS / 3);
  await store.applyBatch([
    { inserts: [...items.slice(0, third), tag(batch, "doomed")] },
    { inserts: items.slice(third, 2 * third) },
    { deletes: [tag(batch, "doomed")] },
    { inserts: items.slice(2 * third) },
  ]);
  process.stdout.write(`ack ${batch}\n`);
}
