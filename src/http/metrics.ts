/**
 * Prometheus metrics of the HTTP service (prom-client): requests by route, method and status,
 * and latency histograms by route and method. Each app has its own registry; `serve` adds the
 * process metrics (CPU, memory, event loop lag) to it. See docs/operations.md, "Metrics".
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ReadMessages } from "../store/executor.js";
import type { StandbyStatus } from "../store/replicas.js";

export interface HttpMetrics {
  readonly registry: Registry;
  /** Records one finished request; `route` is a route template, never a raw path. */
  observe(route: string, method: string, status: number, seconds: number): void;
}

/** Label sets whose series are kept at hand; beyond, the map starts again. */
const MAX_SERIES = 1000;

/** Seconds; requests are usually answered in milliseconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Request metrics in a registry of their own (or the given one).
 *
 * @example
 * const metrics = createHttpMetrics({ processMetrics: true });
 * metrics.observe("/api/authorize", "POST", 200, 0.004);
 * await metrics.registry.metrics(); // "# HELP polar_sql_http_requests_total …"
 */
export function createHttpMetrics(
  options: {
    readonly registry?: Registry;
    readonly processMetrics?: boolean;
    /** The read replicas to report (src/store/replicas.ts), read at each scrape. */
    readonly standbys?: () => readonly StandbyStatus[];
    /** The store's recurring reads and their messages, read at each scrape. */
    readonly readMessages?: () => ReadMessages | null;
  } = {},
): HttpMetrics {
  const registry = options.registry ?? new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: "polar_sql_" });
  if (options.standbys) standbyGauges(registry, options.standbys);
  // Registered when the store counts them: a store whose reads go one by one has none.
  if (options.readMessages?.()) readMessageCounters(registry, options.readMessages);
  const requests = new Counter({
    name: "polar_sql_http_requests_total",
    help: "HTTP requests answered, by route, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "polar_sql_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route and method",
    labelNames: ["route", "method"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  // The series of each label set, found once: prom-client hashes a label object per call.
  const series = new Map<
    string,
    { counted: ReturnType<typeof requests.labels>; timed: ReturnType<typeof latency.labels> }
  >();
  return {
    registry,
    observe(route, method, status, seconds) {
      const key = `${status} ${method} ${route}`;
      let found = series.get(key);
      if (!found) {
        found = {
          counted: requests.labels({ route, method, status: String(status) }),
          timed: latency.labels({ route, method }),
        };
        if (series.size >= MAX_SERIES) series.clear();
        series.set(key, found);
      }
      found.counted.inc();
      found.timed.observe(seconds);
    },
  };
}

/**
 * The process's metrics (CPU, memory, event loop lag) in a registry of their own, shown
 * beside each environment's request metrics.
 */
export function processMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "polar_sql_" });
  return registry;
}

/**
 * Each read replica's state, lag and statements answered, labelled by host, port and database
 * (never the URL's user or password).
 */
function standbyGauges(registry: Registry, standbys: () => readonly StandbyStatus[]): void {
  const label = (url: string) => {
    try {
      const parsed = new URL(url);
      return `${parsed.host}${parsed.pathname}`;
    } catch {
      return "unparsed";
    }
  };
  const gauge = (name: string, help: string, value: (standby: StandbyStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["standby"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const standby of standbys()) this.set({ standby: label(standby.url) }, value(standby));
      },
    });
  gauge(
    "polar_sql_standby_up",
    "1 while a read replica takes questions, 0 while it is skipped",
    (s) => (s.state === "up" ? 1 : 0),
  );
  gauge(
    "polar_sql_standby_lag_seconds",
    "How long ago the primary wrote the first version a read replica has not replayed",
    (s) => s.lagMs / 1000,
  );
  gauge(
    "polar_sql_standby_statements",
    "Statements a read replica answered since the process started",
    (s) => s.served,
  );
}

/**
 * The store's recurring reads and the messages they went in (src/store/postgres-batches.ts):
 * reads over messages is the mean batch.
 */
function readMessageCounters(registry: Registry, counts: () => ReadMessages | null): void {
  const counter = (name: string, help: string, value: (counts: ReadMessages) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        const now = counts();
        if (now) this.inc(value(now));
      },
    });
  counter(
    "polar_sql_store_recurring_reads_total",
    "Recurring reads (prepared questions) sent to PostgreSQL",
    (c) => c.reads,
  );
  counter(
    "polar_sql_store_read_messages_total",
    "Messages those reads went in: several wait and go together while the sessions are busy",
    (c) => c.messages,
  );
}
