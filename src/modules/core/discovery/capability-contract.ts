// The machine-readable capability contract served at GET /api/v1/contract: what the service does,
// which credentials exist and what they reach, and every limit of the seed's Limits table.

export const CAPABILITY_CONTRACT = {
  apiVersion: 1,
  openapiVersion: '3.1.0',
  documentVersion: '1.0.0',
  credentials: [
    {
      type: 'cli',
      prefix: 'cli_',
      scope: 'user',
      obtainedFrom: 'POST /api/v1/cli-token',
      lifetimeDays: 90,
      uses: [
        'app list and creation (unscoped only)',
        'management routes of the apps its user is a member of, within the role (owner, editor, viewer)',
        'scoped capability tokens (POST /api/v1/authority/tokens): listed apps, environments and capabilities only, at most 24 hours',
      ],
    },
    {
      type: 'admin',
      prefix: 'admin_',
      scope: 'app',
      uses: ['management of resources in its app'],
      cannot: ['list apps', 'create apps'],
    },
    {
      type: 'sdk',
      prefix: 'sdk_',
      scope: 'environment',
      side: 'server',
      uses: ['GET /api/v1/config', 'POST /api/v1/evaluate', 'GET /api/v1/advanced-config', 'OFREP'],
    },
    {
      type: 'pub',
      prefix: 'pub_',
      scope: 'environment',
      side: 'client',
      uses: ['GET /api/v1/public-config', 'client-visible GET /api/v1/advanced-config', 'OFREP (client-visible flags)'],
      managementAuthority: false,
    },
  ],
  authentication: { scheme: 'bearer', header: 'Authorization', apiKeyHeader: 'X-API-Key (OFREP routes only)' },
  idempotency: {
    header: 'Idempotency-Key',
    minLength: 8,
    maxLength: 128,
    retentionHours: 24,
    secretReplayWindowMinutes: 15,
  },
  environments: { defaults: ['dev', 'staging', 'prod'], aliases: { development: 'dev', production: 'prod' } },
  versions: { advancedConfigSchema: 'core/v1', loginApiVersion: 1 },
};

type Limits = Record<string, unknown>;

/**
 * The seed's limits, each with the route that enforces it: the contract publishes a limit only while
 * its route is served, so it never promises what does not exist, and a new domain's limits appear
 * with its routes. Limits of every route (identifiers, default body size) are always published.
 */
const LIMITS_BY_ROUTE: readonly [route: string, limits: Limits][] = [
  ['GET /api/v1/config', { configSyncsPerMonthPerEnvironment: { free: 25000, pro: 1000000 } }],
  ['POST /api/v1/events/batch', { telemetryBatchEvents: { min: 1, max: 100 } }],
  [
    'POST /api/v1/insights/query',
    {
      insightQueryWindowDays: 90,
      insightWindowWithoutFilterHours: 24,
      insightDimensions: 3,
      insightMeasures: 10,
      insightRows: 1000,
      insightScannedBuckets: 10000,
      minimumCellSubjects: 20,
      cursorMaxCharacters: 8192,
      cursorResumeTtlMinutes: 15,
    },
  ],
  ['POST /api/v1/insights/events', { eventReadWindowDays: 7, eventPageRows: 100 }],
  ['POST /api/v1/evaluate', { requestBodyBytes: { evaluate: 65536 } }],
  ['POST /api/v1/advanced-config/inspect', { requestBodyBytes: { inspect: 65536 } }],
  ['POST /api/v1/cleanup', { requestBodyBytes: { cleanup: 262144 } }],
  ['GET /api/v1/config-versions', { configVersionsListLimit: { min: 1, max: 100, default: 20 } }],
  ['GET /api/v1/changes', { changesListLimit: { min: 1, max: 200 } }],
  ['GET /api/v1/telemetry/exports', { exportListLimit: { min: 1, max: 100, default: 20 } }],
  ['GET /api/v1/telemetry/exports/{id}/deliveries', { deliveryListLimit: { min: 1, max: 100, default: 20 } }],
  [
    'POST /api/v1/telemetry/exports/{id}/backfills',
    { exportBackfillRetentionDays: 30, idempotencyKeyLength: { backfill: { min: 16 } } },
  ],
  // The seed's lateness window stays 7 days; the tombstone outlives it for as long as ingestion
  // accepts events stamped before the cutoff (30 days), so late events are dropped then too (issue 18).
  ['POST /api/v1/telemetry/erasures', { erasureLatenessWindowDays: 7, erasureTombstoneDays: 30 }],
  ['POST /api/v1/experiments/{id}/results/recompute', { idempotencyKeyLength: { recompute: { min: 16, max: 128 } } }],
];

const ALWAYS: Limits = {
  requestBodyBytes: { default: 1048576 },
  idempotencyKeyLength: { header: { min: 8, max: 128 } },
  identifierLength: { min: 1, max: 128 },
};

/** Versions of formats, each published while the route that speaks it is served. */
const FORMAT_VERSIONS_BY_ROUTE: readonly [route: string, versions: Limits][] = [
  ['POST /api/v1/events/batch', { telemetryEvents: 1 }],
  ['GET /api/v1/experiments/{id}/results', { analysisEngine: 'descriptive-v1' }],
];

/** Merges objects one level deep (requestBodyBytes and idempotencyKeyLength gather entries from several routes). */
function mergeShallow(into: Limits, from: Limits): Limits {
  for (const [key, value] of Object.entries(from)) {
    const existing = into[key];
    into[key] =
      existing && typeof existing === 'object' && value && typeof value === 'object'
        ? { ...existing, ...value }
        : value;
  }
  return into;
}

/** The limits (and format versions) of the routes in `served` ("METHOD /path" as in capabilities). */
export function servedLimits(served: ReadonlySet<string>): { limits: Limits; versions: Limits } {
  const limits = mergeShallow({}, ALWAYS);
  for (const [route, entry] of LIMITS_BY_ROUTE) if (served.has(route)) mergeShallow(limits, entry);
  const versions: Limits = {};
  for (const [route, entry] of FORMAT_VERSIONS_BY_ROUTE) if (served.has(route)) mergeShallow(versions, entry);
  return { limits, versions };
}

/** OpenAPI tags whose capability goes by another name in the contract. */
const CAPABILITY_OF_TAG: Record<string, string> = { auth: 'login' };

interface OpenApiLike {
  paths?: Record<string, Record<string, { tags?: string[] } | undefined>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * The capabilities the service offers, derived from its OpenAPI document so the list can never
 * drift from the routes actually served: one entry per tag with its routes as "METHOD path".
 */
export function capabilitiesOf(doc: OpenApiLike): { name: string; routes: string[] }[] {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      const name = CAPABILITY_OF_TAG[tag] ?? tag;
      const route = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, '{$1}')}`;
      byTag.set(name, [...(byTag.get(name) ?? []), route]);
    }
  }
  return [...byTag.entries()].map(([name, routes]) => ({ name, routes: routes.sort() }));
}
