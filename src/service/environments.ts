/**
 * Environments: one `PolarService` per environment, each over a store of its own
 * (src/store/environment.ts) with its own policy, facts, data version, plans and answers.
 * They share one worker pool: policies and plans are judged by the same threads, whose
 * number does not grow with the environments.
 */
import type { PolarService } from "../api/service.js";
import { checkEnvironmentName, DEFAULT_ENVIRONMENT } from "../store/environment.js";
import { createWorkerPool } from "../workers/pool.js";
import { createService, type ServiceOptions } from "./service.js";

export interface Environments {
  /** Each environment's service, by name. */
  readonly services: ReadonlyMap<string, PolarService>;
  /** Closes every service, then the shared worker pool. */
  close(): Promise<void>;
}

export interface EnvironmentsOptions extends ServiceOptions {
  /** Opens one environment's service; default `createService` (tests inject their own). */
  readonly openService?: (options: ServiceOptions) => Promise<PolarService>;
}

/**
 * Opens a service for each named environment with the same options, each with the store of
 * its environment.
 *
 *   const envs = await openEnvironments(["default", "staging"], { databaseUrl });
 *   await envs.services.get("staging")!.authorize(body);
 */
export async function openEnvironments(
  names: readonly string[],
  options: EnvironmentsOptions = {},
): Promise<Environments> {
  const { openService: open = createService, ...serviceOptions } = options;
  const unique = [...new Set(names)];
  if (unique.length === 0) throw new Error("at least one environment is needed");
  for (const name of unique) checkEnvironmentName(name);
  const ownPool =
    options.pool || options.workers === 0 ? null : createWorkerPool({ size: options.workers });
  const shared = { ...serviceOptions, ...(ownPool && { pool: ownPool }) };
  const services = new Map<string, PolarService>();
  const openOne = async (name: string) => {
    services.set(name, await open({ ...shared, environment: name }));
  };
  const close = async () => {
    await Promise.all([...services.values()].map((service) => service.close()));
    await ownPool?.close();
  };
  try {
    // The default environment first: a PGlite data directory must exist before the
    // `environments/` directory is made inside it.
    if (unique.includes(DEFAULT_ENVIRONMENT)) await openOne(DEFAULT_ENVIRONMENT);
    // Settled, not raced: a store still opening when another failed is closed too.
    const others = unique.filter((name) => name !== DEFAULT_ENVIRONMENT);
    const failed = (await Promise.allSettled(others.map(openOne))).find(
      (result) => result.status === "rejected",
    );
    if (failed) throw failed.reason;
  } catch (cause) {
    await close();
    throw cause;
  }
  // The order of `names`, whatever order they opened in.
  const ordered = new Map(unique.map((name) => [name, services.get(name)!]));
  return { services: ordered, close };
}
