/** The endpoints that write and read stored facts as they are: no question is asked. */
import type { Limits } from "../api/limits.js";
import { ApiError, type PolarService } from "../api/service.js";
import {
  batchBodySchema,
  EXPORT_PAGE_SIZE,
  exportFactsQuerySchema,
  parseBody,
} from "../api/wire.js";
import { factsAfter } from "../store/facts.js";
import type { FactStore } from "../store/store.js";
import { guarded } from "./refusals.js";

type FactEndpoints = Pick<PolarService, "batch" | "getFacts" | "exportFacts" | "clearData">;

export function factEndpoints(store: FactStore, limits: Limits): FactEndpoints {
  return {
    async batch(body) {
      const changesets = parseBody(batchBodySchema, body);
      const version = await guarded(limits, () =>
        store.applyBatch(
          changesets.map((c) =>
            "inserts" in c
              ? { inserts: c.inserts.map((f) => ({ predicate: f.predicate, args: f.args })) }
              : { deletes: c.deletes },
          ),
        ),
      );
      const count = changesets.length;
      return {
        body: { message: `${count} changeset${count === 1 ? "" : "s"} applied` },
        dataVersion: version,
      };
    },

    async getFacts(query) {
      let predicate: string | undefined;
      const positions = new Map<number, { type?: string; id?: string }>();
      for (const [key, value] of query) {
        if (key === "predicate") {
          predicate = value;
          continue;
        }
        const match = /^args\.(\d{1,3})\.(type|id)$/.exec(key);
        if (!match) throw new ApiError(400, `unknown query parameter \`${key}\``);
        const index = Number(match[1]);
        if (value === "") throw new ApiError(400, `\`${key}\` must not be empty`);
        positions.set(index, { ...positions.get(index), [match[2]!]: value });
      }
      if (!predicate) throw new ApiError(400, "`predicate` is required");
      for (const [index, arg] of positions) {
        if (arg.id !== undefined && arg.type === undefined) {
          throw new ApiError(400, `\`args.${index}.id\` needs \`args.${index}.type\``);
        }
      }
      return { body: await store.readFacts({ predicate, positions }) };
    },

    async exportFacts(query) {
      const { page_size, page_token } = parseBody(exportFactsQuerySchema, query);
      const size = page_size === undefined ? EXPORT_PAGE_SIZE.default : Number(page_size);
      if (size < 1 || size > EXPORT_PAGE_SIZE.max) {
        throw new ApiError(400, `\`page_size\` must be a number from 1 to ${EXPORT_PAGE_SIZE.max}`);
      }
      // A token is the key of the last fact sent: a fact key, never anything else.
      if (page_token !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(page_token)) {
        throw new ApiError(400, "`page_token` is not a valid page token");
      }
      const found = await factsAfter(store.db, page_token ?? null, size + 1);
      const page = found.slice(0, size);
      const next = found.length > size ? page.at(-1)!.key : null;
      return { body: { facts: page.map((entry) => entry.fact), next_page_token: next } };
    },

    async clearData() {
      const version = await store.clear();
      return { body: { message: "all facts deleted" }, dataVersion: version };
    },
  };
}
