// Every number a request carries is bounded (CONTRACT.md §7): integers to ±(2^53 − 1) unless the
// field says less (a 32-bit column says 2^31 − 1), numbers to the magnitude their arithmetic can
// sum. Checked over the generated OpenAPI document, so a new field without bounds fails here, and
// on a few routes where an unbounded integer was accepted and lost precision or reached PostgreSQL
// as a parameter it refused (issue 18).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, expectValidation } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { experimentsClient } from '../modules/experimentation/experiments/experiments.test-client.js';

interface NumberField {
  where: string;
  schema: Record<string, any>;
}

/** Every integer and number schema in the parameters and JSON bodies of the document's requests. */
function requestNumbers(spec: any): NumberField[] {
  const found: NumberField[] = [];
  const resolve = (s: any): any => (s?.$ref ? spec.components.schemas[String(s.$ref).split('/').pop()!] : s);
  const walk = (raw: any, where: string, seen: Set<unknown>) => {
    const s = resolve(raw);
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    seen.add(s);
    const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
    if ((types.includes('integer') || types.includes('number')) && s.const === undefined && s.enum === undefined)
      found.push({ where, schema: s });
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}/${k}`, seen);
    for (const key of ['items', 'additionalProperties', 'not'])
      if (s[key] && typeof s[key] === 'object') walk(s[key], `${where}/*`, seen);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
      for (const branch of s[key] ?? []) walk(branch, where, seen);
    for (const v of Object.values(s.patternProperties ?? {})) walk(v, `${where}/*`, seen);
  };
  // The telemetry batch validates its items one by one against this component (not the body's schema).
  walk(spec.components.schemas.TelemetryEvent, 'TelemetryEvent', new Set());
  for (const [path, operations] of Object.entries<any>(spec.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      const route = `${method.toUpperCase()} ${path}`;
      for (const p of operation.parameters ?? []) walk(p.schema, `${route} ${p.in}:${p.name}`, new Set());
      for (const [type, content] of Object.entries<any>(operation.requestBody?.content ?? {}))
        walk(content.schema, `${route} body(${type}):`, new Set());
    }
  }
  return found;
}

const lower = (s: Record<string, any>) => s.minimum ?? s.exclusiveMinimum;
const upper = (s: Record<string, any>) => s.maximum ?? s.exclusiveMaximum;

describe('bounded request numbers', () => {
  test('every integer and number of every request is bounded in the OpenAPI document', async (t) => {
    const { app } = await buildTestApp(t, { dialect: 'sqlite' });
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const fields = requestNumbers(spec);
    assert.ok(fields.length > 50, `found ${fields.length}`);
    for (const known of [
      'POST /api/v1/experiments/{id}/results/recompute body(application/json):/iterationRevision',
      'PATCH /api/v1/layers/{id} body(application/json):/version',
      'TelemetryEvent/metricValue',
      'TelemetryEvent/iterationRevision',
    ]) {
      assert.ok(
        fields.some((f) => f.where === known),
        `${known} is among the fields checked`,
      );
    }
    const unbounded = fields.filter(({ schema }) => {
      const [min, max] = [lower(schema), upper(schema)];
      if (typeof min !== 'number' || typeof max !== 'number' || !Number.isFinite(min) || !Number.isFinite(max))
        return true;
      const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
      return types.includes('integer') && (min < -Number.MAX_SAFE_INTEGER || max > Number.MAX_SAFE_INTEGER);
    });
    assert.deepEqual(
      unbounded.map((f) => `${f.where} [${lower(f.schema)}, ${upper(f.schema)}]`),
      [],
    );
  });
});

for (const dialect of dialects) {
  describe(`integers past their field's bound on ${dialect}`, () => {
    test('are 400 validation_error naming the field, never 500 or a lost digit', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await experimentsClient(app);
      const exp = await c.create();
      const beyondSafe = '9007199254740993';
      const beyondInt32 = '2147483648';
      const raw = (method: 'POST' | 'PATCH' | 'GET', url: string, body?: string) =>
        call(app, method, url, {
          token: c.token,
          idem: true,
          ...(body !== undefined ? { payload: body, headers: { 'content-type': 'application/json' } } : {}),
        });
      const scope = `"appId":"${c.appId}","env":"dev"`;
      expectValidation(
        await raw('PATCH', `/api/v1/experiments/${exp.id}`, `{${scope},"revision":${beyondInt32},"allocation":50}`),
        '/revision',
      );
      expectValidation(
        await raw('PATCH', `/api/v1/experiments/${exp.id}`, `{${scope},"revision":${beyondSafe},"allocation":50}`),
        '/revision',
      );
      expectValidation(
        await raw(
          'POST',
          `/api/v1/experiments/${exp.id}/results/recompute`,
          `{${scope},"iterationId":"it_x","iterationRevision":${beyondInt32},"analysisEngineVersion":"descriptive-v1","idempotencyKey":"recompute-key-01","confirm":true}`,
        ),
        '/iterationRevision',
      );
      expectValidation(
        await raw('GET', `/api/v1/metrics/${c.metricId}?appId=${c.appId}&env=dev&revision=${beyondInt32}`),
        'querystring.revision',
      );
      expectValidation(
        await raw('POST', '/api/v1/rollbacks/plan', `{${scope},"targetVersion":${beyondSafe},"expectedVersion":1}`),
        '/targetVersion',
      );
      expectValidation(
        await raw(
          'POST',
          '/api/v1/insights/query',
          `{${scope},"from":"2026-01-01T00:00:00Z","to":"2026-01-01T01:00:00Z","grain":"hour","measures":["events"],"deadlineAt":${beyondSafe}}`,
        ),
        '/deadlineAt',
      );
      // At the bound: an ordinary answer (here the revision simply does not match).
      const atBound = await raw(
        'PATCH',
        `/api/v1/experiments/${exp.id}`,
        `{${scope},"revision":2147483647,"allocation":50}`,
      );
      assert.equal(atBound.statusCode, 409, atBound.body);
      const metric = await raw('GET', `/api/v1/metrics/${c.metricId}?appId=${c.appId}&env=dev&revision=2147483647`);
      assert.equal(metric.statusCode, 404, metric.body);
    });
  });
}
