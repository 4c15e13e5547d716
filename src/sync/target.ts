/**
 * Where synced facts are stored: a polar-sql server (`--url`, through `/api/facts`,
 * `/api/batch` and `/api/policy`) or a store database opened directly (`--database-url`).
 */
import { checkPolicy } from "../check/check.js";
import type { Program } from "../check/program.js";
import type { GroundFact } from "../core/value.js";
import { tick } from "../source/diagnostic.js";
import { openStore } from "../store/store.js";
import type { SyncedSignature } from "./config.js";
import { redact } from "./source.js";

export interface FactTarget {
  /** The active policy; null when none was stored. */
  program(): Promise<Program | null>;
  /** Stored facts of exactly the signature's predicate, arity, types and constants. */
  stored(signature: SyncedSignature): Promise<GroundFact[]>;
  /** Inserts and deletes (exact facts) in one transaction. */
  apply(inserts: readonly GroundFact[], deletes: readonly GroundFact[]): Promise<void>;
  close(): Promise<void>;
}

/** The target refused or could not be reached; nothing of that batch was written. */
export class SyncTargetError extends Error {
  override readonly name = "SyncTargetError";
}

/** The positions a signature fixes: every type, and the id of each constant. */
function positions(signature: SyncedSignature): Map<number, { type: string; id?: string }> {
  return new Map(
    signature.slots.map((slot, i) => [
      i,
      slot.kind === "constant" ? { type: slot.type, id: slot.value } : { type: slot.type },
    ]),
  );
}

/** Facts as exact delete patterns. */
const patterns = (facts: readonly GroundFact[]) =>
  facts.map((fact) => ({ predicate: fact.predicate, args: fact.args.map((a) => ({ ...a })) }));

/**
 * A store database opened directly (its schema is created or migrated as `serve` does).
 *
 *   const target = await storeTarget("postgres://…/authz");
 */
export async function storeTarget(databaseUrl: string): Promise<FactTarget> {
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore({ databaseUrl });
  } catch (cause) {
    throw new SyncTargetError(
      `cannot open the store database: ${redact((cause as Error).message, databaseUrl)}`,
    );
  }
  return {
    program: () => store.program(),
    async stored(signature) {
      const facts = await store.readFacts({
        predicate: signature.predicate,
        positions: positions(signature),
      });
      return facts.filter((fact) => fact.args.length === signature.slots.length);
    },
    async apply(inserts, deletes) {
      try {
        await store.applyBatch([{ inserts }, { deletes: patterns(deletes) }]);
      } catch (cause) {
        throw new SyncTargetError(
          `the store refused a batch: ${redact((cause as Error).message, databaseUrl)}`,
        );
      }
    },
    close: () => store.close(),
  };
}

/**
 * A polar-sql (or Oso Cloud compatible) server.
 *
 *   const target = httpTarget("http://127.0.0.1:8080", apiKey);
 */
export function httpTarget(url: string, apiKey: string): FactTarget {
  const base = url.replace(/\/+$/, "");
  async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${base}/api${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${apiKey}`,
          ...(body !== undefined && { "Content-Type": "application/json" }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (cause) {
      const reason = (cause as { cause?: Error }).cause?.message ?? (cause as Error).message;
      throw new SyncTargetError(`cannot reach ${tick(base)}: ${redact(reason, apiKey)}`);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    if (!response.ok) {
      const message = (json as { message?: unknown } | null)?.message;
      throw new SyncTargetError(
        `${tick(base)} answered ${response.status}${typeof message === "string" ? `: ${message}` : ""}`,
      );
    }
    return json;
  }
  return {
    async program() {
      const reply = (await call("GET", "/policy")) as {
        policy: { src: string; filename: string | null } | null;
      };
      if (!reply?.policy) return null;
      const name = reply.policy.filename || "policy.polar";
      const checked = checkPolicy([{ name, text: reply.policy.src }]);
      return checked.ok ? checked.program : null;
    },
    async stored(signature) {
      const query = new URLSearchParams({ predicate: signature.predicate });
      for (const [i, { type, id }] of positions(signature)) {
        query.set(`args.${i}.type`, type);
        if (id !== undefined) query.set(`args.${i}.id`, id);
      }
      const facts = (await call("GET", `/facts?${query}`)) as GroundFact[];
      return facts.filter((fact) => fact.args.length === signature.slots.length);
    },
    async apply(inserts, deletes) {
      await call("POST", "/batch", [{ inserts }, { deletes: patterns(deletes) }]);
    },
    close: async () => {},
  };
}
