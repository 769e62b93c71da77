import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';

const ERROR_REF = '#/components/schemas/ErrorBody';

const ROUTES = {
  'get /api/v1/advanced-config': {
    operationId: 'getAdvancedConfig',
    success: ['200', '304'],
    errors: [400, 401, 403, 404, 429, 500, 503],
    query: ['appId', 'env'],
  },
  'post /api/v1/advanced-config/impact': {
    operationId: 'advancedConfigImpact',
    success: ['200'],
    errors: [400, 401, 403, 404],
    body: true,
  },
  'post /api/v1/advanced-config/inspect': {
    operationId: 'inspectAdvancedConfig',
    success: ['200'],
    errors: [400, 401, 403, 404, 409, 413],
    body: true,
  },
} as const;

for (const dialect of dialects) {
  describe(`advanced configuration in the OpenAPI document on ${dialect}`, () => {
    test('every route is tagged advanced, with its operationId, request schemas and every response', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      assert.ok(doc.tags.some((tag: { name: string }) => tag.name === 'advanced'));
      for (const [route, spec] of Object.entries(ROUTES)) {
        const [method, path] = route.split(' ') as [string, string];
        const op = doc.paths[path]?.[method];
        assert.ok(op, `${route} is documented`);
        assert.deepEqual(op.tags, ['advanced']);
        assert.equal(op.operationId, spec.operationId);
        assert.deepEqual(op.security, [{ bearer: [] }]);
        assert.ok(op.responses['200'].content['application/json'].schema.properties, `${route} has a 200 schema`);
        for (const status of spec.success) assert.ok(op.responses[status], `${route} documents ${status}`);
        for (const status of spec.errors) {
          assert.equal(
            op.responses[String(status)]?.content?.['application/json']?.schema?.$ref,
            ERROR_REF,
            `${route} documents ${status}`,
          );
        }
        if ('body' in spec) {
          const body = op.requestBody.content['application/json'].schema;
          assert.equal(body.additionalProperties, false, `${route} is strict`);
          assert.ok(body.required.includes('appId') && body.required.includes('env'));
        }
        if ('query' in spec)
          assert.deepEqual(
            op.parameters
              .filter((p: any) => p.in === 'query')
              .map((p: any) => p.name)
              .sort(),
            [...spec.query],
          );
      }
      const get = doc.paths['/api/v1/advanced-config'].get;
      assert.ok(
        get.responses['200'].headers.etag &&
          get.responses['429'].headers['retry-after'] &&
          get.responses['503'].headers['retry-after'],
      );
      assert.deepEqual(get.responses['200'].content['application/json'].schema.properties.schemaVersion.enum, [
        'core/v1',
      ]);
    });
  });
}
