// Prometheus metrics (prom-client), one registry per app (tests build many apps in one process):
// requests by route, method and status with their latency, configuration syncs and refusals,
// evaluations by reason, snapshot rebuilds, change notifications, the database and the process.
//
// Counted on the request path as plain numbers (no label objects, hashes or closures per request);
// prom-client reads them when /metrics is scraped, through each metric's `collect`. The request
// histogram is a metric object of its own for the same reason: prom-client's Histogram hashes its
// labels on every observation.
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseStats } from '../db/create-db.js';
import { implementedByLane } from './lane-hooks.js';

/** Upper bounds of the latency buckets, in seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const REQUEST_LABELS = ['route', 'method', 'status'] as const;

/** One (route, method, status): counts per bucket (not cumulative), their sum and count. */
interface Series {
  labels: Record<(typeof REQUEST_LABELS)[number], string>;
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** The series of one route pattern, found by method and status without building a key. */
class RouteSeries {
  readonly #byMethod = new Map<string, Map<number, Series>>();

  constructor(
    private readonly route: string,
    private readonly all: Series[],
  ) {}

  observe(method: string, status: number, seconds: number): void {
    let byStatus = this.#byMethod.get(method);
    if (byStatus === undefined) this.#byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = {
        labels: { route: this.route, method, status: String(status) },
        buckets: new Float64Array(BUCKETS.length + 1),
        sum: 0,
        count: 0,
      };
      byStatus.set(status, series);
      this.all.push(series);
    }
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    series.buckets[i]!++;
    series.sum += seconds;
    series.count++;
  }
}

/** Requests by route pattern (the route's URL template, `unmatched` for 404s), method and status. */
export class RequestMetrics {
  readonly #all: Series[] = [];
  readonly #byRoute = new Map<string, RouteSeries>();
  readonly #byConfig = new WeakMap<object, RouteSeries>();

  route(url: string): RouteSeries {
    let series = this.#byRoute.get(url);
    if (series === undefined) this.#byRoute.set(url, (series = new RouteSeries(url, this.#all)));
    return series;
  }

  /** The route of a Fastify request, found by its config object (one per route). */
  routeOf(config: object & { url?: string }): RouteSeries {
    let series = this.#byConfig.get(config);
    if (series === undefined) this.#byConfig.set(config, (series = this.route(config.url ?? 'unmatched')));
    return series;
  }

  /** The two metrics prom-client exposes from the series. */
  metrics(): Metric[] {
    const all = this.#all;
    const histogram = {
      name: 'ensign_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by route pattern, method and status (fast-lane routes included).',
      type: 'histogram',
      aggregator: 'sum',
      get() {
        const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
        for (const s of all) {
          let cumulative = 0;
          for (let i = 0; i <= BUCKETS.length; i++) {
            cumulative += s.buckets[i]!;
            values.push({
              metricName: `${histogram.name}_bucket`,
              labels: { ...s.labels, le: i < BUCKETS.length ? BUCKETS[i]! : '+Inf' },
              value: cumulative,
            });
          }
          values.push({ metricName: `${histogram.name}_sum`, labels: s.labels, value: s.sum });
          values.push({ metricName: `${histogram.name}_count`, labels: s.labels, value: s.count });
        }
        return {
          name: histogram.name,
          help: histogram.help,
          type: histogram.type,
          aggregator: histogram.aggregator,
          values,
        };
      },
      reset() {
        all.length = 0;
      },
    };
    const counter = new Counter({
      name: 'ensign_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status (fast-lane routes included).',
      labelNames: REQUEST_LABELS,
      registers: [],
      collect() {
        this.reset();
        for (const s of all) this.inc(s.labels, s.count);
      },
    });
    // prom-client's registry takes any object with its metric interface; its types list its classes.
    return [histogram as unknown as Metric, counter];
  }
}

/** What configuration delivery reports. */
export interface DeliveryMetrics {
  syncAdmitted(): void;
  syncRefused(reason: 'quota' | 'metering_unavailable'): void;
  snapshotBuilt(kind: 'delivery' | 'evaluation'): void;
  /** A change announcement received: by notification, or found by polling. */
  changeNotified(source: 'notification' | 'poll'): void;
}

/** What evaluation reports: one call per flag evaluated, with the engine's reason. */
export interface EvaluationMetrics {
  evaluated(reason: string): void;
}

export interface Metrics {
  registry: Registry;
  requests: RequestMetrics;
  delivery: DeliveryMetrics;
  evaluation: EvaluationMetrics;
  /** Process metrics (CPU, memory, event loop, GC) from the first scrape on. */
  startProcessMetrics(): void;
}

/** Counts kept as plain numbers per label value, exposed as a prom-client Counter. */
function plainCounter(registry: Registry, name: string, help: string, label: string): (value: string) => void {
  const counts = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, n] of counts) this.inc({ [label]: value }, n);
    },
  });
  return (value) => counts.set(value, (counts.get(value) ?? 0) + 1);
}

export function createMetrics(database: { stats(): DatabaseStats }): Metrics {
  const registry = new Registry();
  const requests = new RequestMetrics();
  for (const metric of requests.metrics()) registry.registerMetric(metric);

  let syncs = 0;
  new Counter({
    name: 'ensign_config_syncs_total',
    help: 'Configuration syncs served (legacy delivery and OFREP bulk, 200 and 304), as counted against the monthly quotas.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(syncs);
    },
  });
  const refusals = plainCounter(
    registry,
    'ensign_config_sync_refusals_total',
    'Configuration syncs refused: quota (429, the monthly quota is used) or metering_unavailable (503).',
    'reason',
  );
  const rebuilds = plainCounter(
    registry,
    'ensign_snapshot_rebuilds_total',
    'Compiled snapshots built after a configuration change or a first request: delivery (served documents) or evaluation (compiled flag sets).',
    'kind',
  );
  const changes = plainCounter(
    registry,
    'ensign_config_change_notifications_total',
    'Configuration change announcements received: by notification (LISTEN/NOTIFY or in process) or found by polling.',
    'source',
  );
  const evaluations = plainCounter(
    registry,
    'ensign_evaluations_total',
    'Flag evaluations by the engine, by reason (a cached bulk answer is not evaluated again).',
    'reason',
  );

  const pool = new Gauge({
    name: 'ensign_db_pool_connections',
    help: 'PostgreSQL pool connections: max (configured), total (open), idle, and waiting (queued requests for a connection).',
    labelNames: ['state'],
    registers: [],
    collect() {
      const stats = database.stats().pool;
      if (stats === undefined) return;
      for (const state of ['max', 'total', 'idle', 'waiting'] as const) this.set({ state }, stats[state]);
    },
  });
  const size = new Gauge({
    name: 'ensign_db_sqlite_size_bytes',
    help: 'Size of the SQLite database file (write-ahead log aside).',
    registers: [],
    collect() {
      const bytes = database.stats().sizeBytes;
      if (bytes !== undefined) this.set(bytes);
    },
  });
  // Only the engine in use has its gauge.
  const stats = database.stats();
  if (stats.pool !== undefined) registry.registerMetric(pool);
  if (stats.sizeBytes !== undefined) registry.registerMetric(size);

  let processMetrics = false;
  return {
    registry,
    requests,
    delivery: {
      syncAdmitted: () => void syncs++,
      syncRefused: (reason) => refusals(reason),
      snapshotBuilt: (kind) => rebuilds(kind),
      changeNotified: (source) => changes(source),
    },
    evaluation: { evaluated: (reason) => evaluations(reason) },
    startProcessMetrics() {
      // Lazily: each call installs a GC observer and an event-loop monitor for good, which the many
      // apps of a test run do not need.
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry, prefix: 'ensign_' });
    },
  };
}

/**
 * Counts every answered request by its route pattern. The fast lane does the same for its answers
 * (through the declared observer), with the same labels and clock.
 */
export function registerRequestMetrics(app: FastifyInstance, requests: RequestMetrics): void {
  const hook = implementedByLane(
    function requestMetrics(request: FastifyRequest, reply: FastifyReply, done: () => void) {
      requests.routeOf(request.routeOptions.config).observe(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    },
    {
      name: 'request metrics',
      observer: (url) => {
        const series = requests.route(url);
        return (method, status, startedAt) => series.observe(method, status, (performance.now() - startedAt) / 1000);
      },
    },
  );
  app.addHook('onResponse', hook);
}
