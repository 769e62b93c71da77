// The machine-readable capability contract served at GET /api/v1/contract: what the service does,
// which credentials exist and what they reach, and the limits of what is served (the seed's Limits
// table, one capability at a time as the capabilities are built).

export const CAPABILITY_CONTRACT = {
  apiVersion: 1,
  openapiVersion: '3.1.0',
  documentVersion: '1.0.0',
  credentials: [
    { type: 'cli', prefix: 'cli_', scope: 'user', obtainedFrom: 'POST /api/v1/cli-token', lifetimeDays: 90, uses: ['app list and creation (unscoped only)', 'all management routes of owned apps'] },
    { type: 'admin', prefix: 'admin_', scope: 'app', uses: ['management of resources in its app'], cannot: ['list apps', 'create apps'] },
    { type: 'sdk', prefix: 'sdk_', scope: 'environment', side: 'server', uses: ['GET /api/v1/config', 'POST /api/v1/evaluate', 'GET /api/v1/advanced-config', 'OFREP'] },
    { type: 'pub', prefix: 'pub_', scope: 'environment', side: 'client', uses: ['GET /api/v1/public-config', 'client-visible GET /api/v1/advanced-config', 'OFREP (client-visible flags)'], managementAuthority: false },
  ],
  authentication: { scheme: 'bearer', header: 'Authorization', apiKeyHeader: 'X-API-Key (OFREP routes only)' },
  idempotency: { header: 'Idempotency-Key', minLength: 8, maxLength: 128, retentionHours: 24, secretReplayWindowMinutes: 15 },
  environments: { defaults: ['dev', 'staging', 'prod'], aliases: { development: 'dev', production: 'prod' } },
  versions: { advancedConfigSchema: 'core/v1', loginApiVersion: 1 },
};

type Limits = Record<string, unknown>;

/** Limits every served route shares. */
const COMMON_LIMITS: Limits = {
  requestBodyBytes: { default: 1048576 },
  idempotencyKeyLength: { header: { min: 8, max: 128 } },
  identifierLength: { min: 1, max: 128 },
};

/**
 * The limits of each capability, published only while it is served (capabilities come from the
 * OpenAPI tags), so the contract never describes a feature that does not exist. A domain adds its
 * own entry when it lands; object-valued limits of several capabilities (requestBodyBytes) merge.
 */
const LIMITS_OF_CAPABILITY: Record<string, Limits> = {
  journal: { changesListLimit: { min: 1, max: 200 }, cursorMaxCharacters: 8192 },
  versions: { configVersionsListLimit: { min: 1, max: 100, default: 20 }, cursorMaxCharacters: 8192 },
  evaluation: { requestBodyBytes: { evaluate: 65536 } },
  advanced: { requestBodyBytes: { inspect: 65536 } },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The limits of the served capabilities; `dynamic` adds those that come from the operator's
 * configuration (quotas) for capabilities that are served. */
export function servedLimits(capabilities: readonly string[], dynamic: Record<string, Limits> = {}): Limits {
  const limits: Limits = { ...COMMON_LIMITS };
  for (const capability of [...capabilities].sort()) {
    for (const source of [LIMITS_OF_CAPABILITY[capability], dynamic[capability]]) {
      for (const [name, value] of Object.entries(source ?? {})) {
        const held = limits[name];
        limits[name] = isObject(held) && isObject(value) ? { ...held, ...value } : value;
      }
    }
  }
  return limits;
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
