// The only file that reads process.env, and the only place with defaults. Every operator setting of
// CONTRACT.md section 1b lives here, validated once at start so a typo fails loudly instead of
// silently falling back; appSettingsOf fills in what a caller of buildApp (tests, benches) left out.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

/** log2 of scrypt's N for password hashes: N = 2^14 with r = 8 is 16 MiB and ~40 ms of one core per hash here. */
export const DEFAULT_PASSWORD_SCRYPT_COST = 14;

const PlanQuotas = Type.Object({
  configSyncs: Type.Integer({ minimum: 0 }),
  apps: Type.Integer({ minimum: 0 }),
  flags: Type.Integer({ minimum: 0 }),
});

const ConfigSchema = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  dataDir: Type.String({ minLength: 1 }),
  databaseUrl: Type.String({ pattern: '^(sqlite|postgres|postgresql)://' }),
  secret: Type.String({ minLength: 32 }),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  defaultPlan: Type.Union(PLANS.map((p) => Type.Literal(p))),
  /**
   * log2 of scrypt's N for new password hashes (r = 8, p = 1). An operator may raise it, never lower
   * it: 15 doubles each sign-up's and sign-in's CPU and memory (32 MiB), 17 is OWASP's advice.
   */
  passwordScryptCost: Type.Integer({ minimum: DEFAULT_PASSWORD_SCRYPT_COST, maximum: 17 }),
  quotas: Type.Object({ free: PlanQuotas, pro: PlanQuotas }),
  /** Background jobs (src/jobs): handlers at once in this process (0: this process runs none) and the poll interval. */
  jobs: Type.Object({
    concurrency: Type.Integer({ minimum: 0, maximum: 64 }),
    pollIntervalMs: Type.Integer({ minimum: 50, maximum: 60_000 }),
  }),
  /** Bearer token for GET /metrics; without it only loopback clients are served. */
  metricsToken: Type.Optional(Type.String({ minLength: 16 })),
  telemetryEventsPerSecond: Type.Integer({ minimum: 1 }),
  insightsQueriesPerMinute: Type.Integer({ minimum: 1 }),
  /** On a SQLite file, where ingestion's transactions run: a writer thread of their own (default) or this thread. */
  telemetryWriter: Type.Optional(Type.Union([Type.Literal('thread'), Type.Literal('inline')])),
  /** On PostgreSQL, ingestion's group transactions at once in this process (decision 0060). */
  telemetryWriteLanes: Type.Integer({ minimum: 1, maximum: 8 }),
  /** Raw telemetry export policy (issue 13): which hosts destinations may name, and how they are reached. */
  exportPolicy: Type.Object({
    allowedHosts: Type.Array(Type.String({ minLength: 1 })),
    allowPrivateNetworks: Type.Boolean(),
    /** host -> pinned address, like curl's --resolve. */
    resolve: Type.Record(Type.String(), Type.String()),
    caFile: Type.Optional(Type.String({ minLength: 1 })),
  }),
  /** Whether the fast lane answers its routes (decision 0002, bar in 0055); off, Fastify answers them. Default on. */
  fastLane: Type.Optional(Type.Boolean()),
  http: Type.Object({
    /** Longest time to receive a whole request (headers and body); slower clients get 408 and are cut off. */
    requestTimeoutMs: Type.Integer({ minimum: 1000 }),
    /** Longest time to receive a request's headers. */
    headersTimeoutMs: Type.Integer({ minimum: 1000 }),
    /** How long an idle keep-alive connection stays open (above a load balancer's idle timeout). */
    keepAliveTimeoutMs: Type.Integer({ minimum: 1000 }),
    /** On SIGTERM/SIGINT, how long in-flight requests may finish before the remaining connections are closed. */
    shutdownGraceMs: Type.Integer({ minimum: 0 }),
  }),
});

/** The fast lane is on unless the configuration (ENSIGN_FAST_LANE=off) says otherwise. */
export const DEFAULT_FAST_LANE = true;

/** Defaults of the telemetry and insights rate limits (per environment; per credential). */
export const DEFAULT_TELEMETRY_EVENTS_PER_SECOND = 5000;
export const DEFAULT_INSIGHTS_QUERIES_PER_MINUTE = 60;
// One: two lanes are opt-in until a 503 seen once with two, under a paused process, is explained
// (decision 0060).
export const DEFAULT_TELEMETRY_WRITE_LANES = 1;

/** Request bodies are limited to 1 MiB unless a route says less (docs/conventions.md). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Flag keys of up to 128 characters travel in OFREP paths, percent-encoded (':' is 3 characters). */
export const MAX_PARAM_LENGTH = 512;
/** How often delivery polls the store for configuration changes a notification may have missed. */
export const DEFAULT_CONFIG_POLL_INTERVAL_MS = 500;
/** How often each process writes the key usage it counted in memory and purges expired idempotency records. */
export const PROCESS_TASKS_INTERVAL_MS = 5000;

export type EnsignConfig = Static<typeof ConfigSchema> & { logLevel: string; defaultPlan: Plan };

export const DEFAULT_JOB_SETTINGS: EnsignConfig['jobs'] = { concurrency: 2, pollIntervalMs: 1000 };
export const DEFAULT_HTTP_SETTINGS: EnsignConfig['http'] = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // Fastify's default: above the 60 s idle timeout of common load balancers, so they never reuse a
  // connection the server is closing.
  keepAliveTimeoutMs: 72_000,
  shutdownGraceMs: 10_000,
};
/** No export destination is allowed until the operator lists its host (ENSIGN_EXPORT_ALLOWED_HOSTS). */
export const DEFAULT_EXPORT_POLICY: EnsignConfig['exportPolicy'] = {
  allowedHosts: [],
  allowPrivateNetworks: false,
  resolve: {},
};

/** What buildApp needs of the configuration; tests and benches leave out what has a default. */
export type AppConfig = Pick<EnsignConfig, 'secret' | 'quotas' | 'defaultPlan' | 'logLevel' | 'metricsToken'> &
  Partial<
    Pick<
      EnsignConfig,
      | 'jobs'
      | 'telemetryEventsPerSecond'
      | 'insightsQueriesPerMinute'
      | 'telemetryWriter'
      | 'telemetryWriteLanes'
      | 'exportPolicy'
      | 'http'
      | 'fastLane'
      | 'passwordScryptCost'
    >
  >;

/** The settings the app runs with: what the configuration gives, the defaults for the rest. */
export interface AppSettings
  extends
    Required<Omit<AppConfig, 'metricsToken' | 'telemetryWriter'>>,
    Pick<AppConfig, 'metricsToken' | 'telemetryWriter'> {
  bodyLimit: number;
  maxParamLength: number;
  /** null: only notifications carry changes between processes (a test proves LISTEN/NOTIFY with it). */
  configPollIntervalMs: number | null;
  processTasksIntervalMs: number;
}

export function appSettingsOf(config: AppConfig, configPollIntervalMs?: number | null): AppSettings {
  return {
    ...config,
    jobs: config.jobs ?? DEFAULT_JOB_SETTINGS,
    telemetryEventsPerSecond: config.telemetryEventsPerSecond ?? DEFAULT_TELEMETRY_EVENTS_PER_SECOND,
    insightsQueriesPerMinute: config.insightsQueriesPerMinute ?? DEFAULT_INSIGHTS_QUERIES_PER_MINUTE,
    telemetryWriteLanes: config.telemetryWriteLanes ?? DEFAULT_TELEMETRY_WRITE_LANES,
    exportPolicy: config.exportPolicy ?? DEFAULT_EXPORT_POLICY,
    http: config.http ?? DEFAULT_HTTP_SETTINGS,
    fastLane: config.fastLane ?? DEFAULT_FAST_LANE,
    passwordScryptCost: config.passwordScryptCost ?? DEFAULT_PASSWORD_SCRYPT_COST,
    bodyLimit: DEFAULT_BODY_LIMIT,
    maxParamLength: MAX_PARAM_LENGTH,
    configPollIntervalMs: configPollIntervalMs === undefined ? DEFAULT_CONFIG_POLL_INTERVAL_MS : configPollIntervalMs,
    processTasksIntervalMs: PROCESS_TASKS_INTERVAL_MS,
  };
}

export type QuotaSet = Static<typeof PlanQuotas>;

type Env = Record<string, string | undefined>;

function listFrom(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `host:ip[,host:ip…]`; the address may be IPv6 (everything after the first colon). */
function resolveFrom(env: Env, name: string): Record<string, string> {
  const pins: Record<string, string> = {};
  for (const entry of listFrom(env, name)) {
    const at = entry.indexOf(':');
    if (at <= 0 || at === entry.length - 1) throw new Error(`${name} entries must be host:address, got "${entry}"`);
    pins[entry.slice(0, at).toLowerCase()] = entry.slice(at + 1).replace(/^\[|\]$/g, '');
  }
  return pins;
}

function integerFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return n;
}

/** Reads the server secret, generating and persisting one (mode 0600) on first start. */
function resolveSecret(env: Env, dataDir: string): string {
  if (env.ENSIGN_SECRET) return env.ENSIGN_SECRET;
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

export function loadConfig(env: Env = process.env): EnsignConfig {
  const dataDir = resolve(env.ENSIGN_DATA_DIR || './data');
  const config = {
    host: env.ENSIGN_HOST || '127.0.0.1',
    port: integerFrom(env, 'ENSIGN_PORT', 8080),
    dataDir,
    databaseUrl: env.ENSIGN_DATABASE_URL || `sqlite://${join(dataDir, 'ensign.db')}`,
    secret: resolveSecret(env, dataDir),
    logLevel: env.ENSIGN_LOG_LEVEL || 'info',
    defaultPlan: env.ENSIGN_DEFAULT_PLAN || 'free',
    passwordScryptCost: integerFrom(env, 'ENSIGN_PASSWORD_SCRYPT_COST', DEFAULT_PASSWORD_SCRYPT_COST),
    quotas: {
      free: {
        configSyncs: integerFrom(env, 'ENSIGN_QUOTA_FREE_CONFIG_SYNCS', 25_000),
        apps: integerFrom(env, 'ENSIGN_QUOTA_FREE_APPS', 10),
        flags: integerFrom(env, 'ENSIGN_QUOTA_FREE_FLAGS', 500),
      },
      pro: {
        configSyncs: integerFrom(env, 'ENSIGN_QUOTA_PRO_CONFIG_SYNCS', 1_000_000),
        apps: integerFrom(env, 'ENSIGN_QUOTA_PRO_APPS', 1000),
        flags: integerFrom(env, 'ENSIGN_QUOTA_PRO_FLAGS', 10_000),
      },
    },
    jobs: {
      concurrency: integerFrom(env, 'ENSIGN_JOBS_CONCURRENCY', DEFAULT_JOB_SETTINGS.concurrency),
      pollIntervalMs: integerFrom(env, 'ENSIGN_JOBS_POLL_MS', DEFAULT_JOB_SETTINGS.pollIntervalMs),
    },
    ...(env.ENSIGN_METRICS_TOKEN ? { metricsToken: env.ENSIGN_METRICS_TOKEN } : {}),
    telemetryEventsPerSecond: integerFrom(
      env,
      'ENSIGN_TELEMETRY_EVENTS_PER_SECOND',
      DEFAULT_TELEMETRY_EVENTS_PER_SECOND,
    ),
    insightsQueriesPerMinute: integerFrom(
      env,
      'ENSIGN_INSIGHTS_QUERIES_PER_MINUTE',
      DEFAULT_INSIGHTS_QUERIES_PER_MINUTE,
    ),
    telemetryWriter: env.ENSIGN_TELEMETRY_WRITER || 'thread',
    telemetryWriteLanes: integerFrom(env, 'ENSIGN_TELEMETRY_WRITE_LANES', DEFAULT_TELEMETRY_WRITE_LANES),
    exportPolicy: {
      allowedHosts: listFrom(env, 'ENSIGN_EXPORT_ALLOWED_HOSTS').map((h) => h.toLowerCase()),
      allowPrivateNetworks: env.ENSIGN_EXPORT_ALLOW_PRIVATE_NETWORKS === 'true',
      resolve: resolveFrom(env, 'ENSIGN_EXPORT_RESOLVE'),
      ...(env.ENSIGN_EXPORT_CA_FILE ? { caFile: env.ENSIGN_EXPORT_CA_FILE } : {}),
    },
    http: httpSettingsFrom(env),
    fastLane: env.ENSIGN_FAST_LANE !== 'off',
  };
  if (!Value.Check(ConfigSchema, config)) {
    const first = [...Value.Errors(ConfigSchema, config)][0];
    throw new Error(`Invalid configuration at ${first?.path}: ${first?.message}`);
  }
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    throw new Error(
      'ENSIGN_HEADERS_TIMEOUT_MS must not exceed ENSIGN_REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  return config as EnsignConfig;
}

function httpSettingsFrom(env: Env): EnsignConfig['http'] {
  return {
    requestTimeoutMs: integerFrom(env, 'ENSIGN_REQUEST_TIMEOUT_MS', DEFAULT_HTTP_SETTINGS.requestTimeoutMs),
    headersTimeoutMs: integerFrom(env, 'ENSIGN_HEADERS_TIMEOUT_MS', DEFAULT_HTTP_SETTINGS.headersTimeoutMs),
    keepAliveTimeoutMs: integerFrom(env, 'ENSIGN_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_SETTINGS.keepAliveTimeoutMs),
    shutdownGraceMs: integerFrom(env, 'ENSIGN_SHUTDOWN_GRACE_MS', DEFAULT_HTTP_SETTINGS.shutdownGraceMs),
  };
}
