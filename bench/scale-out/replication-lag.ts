/**
 * How far a streaming standby lags its primary while a bench phase runs: `replay_lag` of
 * `pg_stat_replication` on the primary (the time between a commit's WAL being written locally
 * and the standby reporting it replayed), sampled every 100 ms.
 *
 *   const sampler = sampleReplicationLag(primaryUrl);
 *   // … load …
 *   const { p50Ms, maxMs } = await sampler.stop();
 */
import pg from "pg";

export interface LagSummary {
  readonly samples: number;
  readonly p50Ms: number;
  readonly maxMs: number;
}

export function sampleReplicationLag(primaryUrl: string): { stop(): Promise<LagSummary> } {
  const samples: number[] = [];
  const client = new pg.Client({ connectionString: primaryUrl });
  const connected = client.connect();
  let running = true;
  const loop = (async () => {
    await connected;
    while (running) {
      const { rows } = await client.query<{ ms: number | null }>(
        "SELECT max(extract(epoch FROM replay_lag)) * 1000 AS ms FROM pg_stat_replication",
      );
      // Null when nothing was replayed lately: the standby is caught up.
      samples.push(rows[0]?.ms ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      const sorted = [...samples].sort((a, b) => a - b);
      const at = (q: number) =>
        sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { samples: sorted.length, p50Ms: round(at(0.5)), maxMs: round(sorted.at(-1) ?? 0) };
    },
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
