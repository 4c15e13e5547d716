/**
 * `polar-sql serve`'s keys and environments: the keys of `--keys` (src/http/keys-file.ts) and
 * the read-write keys of `default` from `--api-key-file` and `POLAR_SQL_API_KEYS`; the
 * environments they name; and the starting policy and facts of each.
 */
import type { PolarService } from "../api/service.js";
import { type ApiKey, defaultEnvironmentKeys, loadApiKeys } from "../http/auth.js";
import { loadKeysFile, mergeKeys } from "../http/keys-file.js";
import { DEFAULT_ENVIRONMENT } from "../store/environment.js";

/**
 * Every accepted key. Throws with a message naming the file (and, for `--keys`, the line and
 * column) when a file cannot be read or is wrong.
 */
export async function loadServeKeys(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly apiKeyFile?: string;
  readonly keysFile?: string;
}): Promise<ApiKey[]> {
  const plain = await loadApiKeys({
    env: options.env,
    ...(options.apiKeyFile !== undefined && { keyFile: options.apiKeyFile }),
  });
  const defaults = defaultEnvironmentKeys(plain);
  if (options.keysFile === undefined) return defaults;
  return mergeKeys(options.keysFile, await loadKeysFile(options.keysFile), defaults);
}

/** The environments to serve: those the keys name; `default` alone without `--keys`. */
export function servedEnvironments(keys: readonly ApiKey[], keysFile: boolean): string[] {
  if (!keysFile) return [DEFAULT_ENVIRONMENT];
  return [...new Set(keys.map((key) => key.environment))];
}

/**
 * Gives each environment the policy of `--policy` and the facts of `--facts`. With `--keys`
 * (`onlyNew`), only environments without a policy yet get them: a policy posted to an
 * environment since is kept across restarts.
 */
export async function seedEnvironments(
  services: ReadonlyMap<string, PolarService>,
  policy: { readonly src: string; readonly filename: string | null },
  facts: readonly unknown[],
  onlyNew: boolean,
): Promise<void> {
  for (const service of services.values()) {
    if (onlyNew) {
      const current = (await service.getPolicy({})).body as { policy: unknown };
      if (current.policy !== null) continue;
    }
    await service.postPolicy(policy, {});
    if (facts.length > 0) await service.batch([{ inserts: facts }]);
  }
}
