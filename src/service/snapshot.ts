/**
 * The store as one question sees it: where it reads (the primary or a standby), the program
 * active there, the fact table as data bindings, the zero-argument facts as central facts,
 * and the data version they were read at. Shapes are read again only when a newer data
 * version is seen (an older one, read on a standby further behind, keeps the newer shapes: a
 * superset, since shapes outlive their facts), and a write that adds no shape keeps the
 * bindings object, so the plans kept per bindings object stay.
 */
import type { DataBindings } from "../bindings/types.js";
import { checkPolicy } from "../check/check.js";
import type { Program } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import { type CentralFacts, NO_CENTRAL_FACTS } from "../plan/resolve/central-facts.js";
import { storeBindings } from "../store/bindings.js";
import type { SqlExecutor } from "../store/executor.js";
import { matchingFacts, readShapes } from "../store/facts.js";
import type { FactStore } from "../store/store.js";

export interface Snapshot {
  /** Where the question's statements run. */
  readonly db: SqlExecutor;
  readonly program: Program;
  readonly bindings: DataBindings;
  readonly central: CentralFacts;
  readonly version: number;
}

/** The fallback policy when none was stored: no rules, so every answer is negative. */
export const EMPTY_PROGRAM: Program = (() => {
  const result = checkPolicy([{ name: "empty.polar", text: "" }]);
  if (!result.ok) throw new Error("the empty policy does not check");
  return result.program;
})();

/** The active program, or the empty one. */
export async function activeProgram(store: FactStore): Promise<Program> {
  return (await store.program()) ?? EMPTY_PROGRAM;
}

/**
 * Snapshots of `store`, one per data version.
 *
 *   const snapshots = storeSnapshots(store);
 *   const { db, program, bindings, version } = await snapshots.current(offset);
 */
export function storeSnapshots(store: FactStore): {
  current(atLeast?: number): Promise<Snapshot>;
} {
  let shapesAt = -1;
  let bindings = storeBindings([], store.dialect);
  let bindingsShapes = "[]";
  let central: CentralFacts = NO_CENTRAL_FACTS;

  async function readAt(version: number, db: SqlExecutor): Promise<void> {
    const shapes = await readShapes(db);
    // Zero-argument facts cannot be written as bindings; they are few, so inline them.
    const facts: GroundFact[] = [];
    for (const shape of shapes) {
      if (shape.types.length === 0) facts.push(...(await matchingFacts(db, shape.predicate, 0)));
    }
    const shapesKey = JSON.stringify(shapes.map((shape) => [shape.predicate, shape.types]));
    if (shapesKey !== bindingsShapes) {
      bindings = storeBindings(shapes, store.dialect);
      bindingsShapes = shapesKey;
    }
    // Without zero-argument facts there are no central facts: printing skips every lookup.
    central =
      facts.length === 0
        ? NO_CENTRAL_FACTS
        : {
            facts: (predicate, arity) =>
              arity === 0 ? facts.filter((fact) => fact.predicate === predicate) : [],
          };
    shapesAt = version;
  }

  return {
    async current(atLeast) {
      const head = await store.head(atLeast);
      const version = head.dataVersion;
      if (version > shapesAt) await readAt(version, head.db);
      return { db: head.db, program: head.program ?? EMPTY_PROGRAM, bindings, central, version };
    },
  };
}
