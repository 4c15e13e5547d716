/** A fact store as a preview reads it: the shapes of its facts and its zero-argument facts. */
import type { GroundFact } from "../core/value.js";
import { NO_CENTRAL_FACTS } from "../plan/resolve/central-facts.js";
import { matchingFacts, readShapes } from "../store/facts.js";
import type { FactStore } from "../store/store.js";
import type { PreviewStore } from "./preview.js";

/**
 * The store's view for `previewPolicyChange`. Zero-argument facts have no binding (the fact
 * table presents facts by argument); they are few and become central facts, as in the service.
 */
export async function previewStoreOf(
  store: Pick<FactStore, "db" | "dialect">,
): Promise<PreviewStore> {
  const shapes = await readShapes(store.db);
  const bare: GroundFact[] = [];
  for (const shape of shapes) {
    if (shape.types.length === 0) bare.push(...(await matchingFacts(store.db, shape.predicate, 0)));
  }
  const central =
    bare.length === 0
      ? NO_CENTRAL_FACTS
      : {
          facts: (predicate: string, arity: number) =>
            arity === 0 ? bare.filter((fact) => fact.predicate === predicate) : [],
        };
  return { db: store.db, dialect: store.dialect, shapes, central };
}
