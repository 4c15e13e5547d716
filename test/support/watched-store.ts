/**
 * A store whose statements run through `db`, an executor a test wraps around `store.db` (to
 * count, slow down or record statements): its questions too, which run on the executor that
 * `head` names (src/store/store.ts, `ReadHead`).
 *
 *   const service = serviceOver(storeThrough(store, counting(store.db)));
 */
import type { SqlExecutor } from "../../src/store/executor.js";
import type { FactStore } from "../../src/store/store.js";

export function storeThrough(store: FactStore, db: SqlExecutor): FactStore {
  return {
    ...store,
    db,
    head: async (atLeast) => ({ ...(await store.head(atLeast)), db }),
  };
}
