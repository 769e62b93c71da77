// The delivery routes as operators and integrators see them: the OpenAPI document and the logs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildTestApp } from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import { environmentFixture, getConfig } from '../../../../test/helpers/delivery-fixtures.js';

const LEGACY_ERROR = '#/components/schemas/LegacyErrorBody';

describe('delivery routes in the OpenAPI document and the logs', () => {
  test('both routes are documented: tag, operationId, If-None-Match, 200 with headers, 304, legacy 401/429/503', async (t) => {
    const { app } = await buildTestApp(t, { dialect: 'sqlite' });
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const validation = await new Validator().validate(doc);
    assert.equal(validation.valid, true, JSON.stringify(validation.errors));
    assert.ok(doc.tags.some((tag: { name: string }) => tag.name === 'delivery'));

    for (const [path, operationId] of [
      ['/api/v1/config', 'getConfig'],
      ['/api/v1/public-config', 'getPublicConfig'],
    ]) {
      const operation = doc.paths[path]?.get;
      assert.ok(operation, `${path} is documented`);
      assert.equal(operation.operationId, operationId);
      assert.deepEqual(operation.tags, ['delivery']);
      assert.deepEqual(operation.security, [{ bearer: [] }]);
      assert.ok(
        operation.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'if-none-match'),
      );
      const ok = operation.responses['200'];
      assert.deepEqual(Object.keys(ok.headers).sort(), [
        'cache-control',
        'etag',
        'x-sync-quota-limit',
        'x-sync-quota-remaining',
      ]);
      assert.deepEqual(ok.content['application/json'].schema.required, [
        'appId',
        'env',
        'version',
        'doc',
        'ttlSeconds',
      ]);
      assert.equal(operation.responses['304'].content, undefined);
      for (const status of ['401', '429', '503']) {
        assert.equal(
          operation.responses[status].content['application/json'].schema.$ref,
          LEGACY_ERROR,
          `${path} ${status}`,
        );
      }
      assert.ok(operation.responses['429'].headers['retry-after']);
      assert.ok(operation.responses['503'].headers['retry-after']);
    }
    assert.equal(doc.paths['/api/v1/public-config/*'], undefined, 'the CORS preflight route stays out of the document');
  });

  test('syncs are logged at debug, not info; errors and other routes keep their logs', async (t) => {
    const { app, logs } = await buildTestApp(t, { dialect: 'sqlite', captureLogs: true, config: { logLevel: 'info' } });
    const fx = await environmentFixture(app);
    const sync = await getConfig(app, fx.sdk);
    assert.equal(sync.statusCode, 200);
    assert.equal(
      (
        await app.inject({
          method: 'GET',
          url: `/api/v1/keys?appId=${fx.target.appId}`,
          headers: bearer(fx.user.token),
        })
      ).statusCode,
      200,
    );
    const lines = logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.ok(!lines.some((l) => l.reqId === sync.headers['x-request-id']), 'no info lines for a sync');
    assert.ok(
      lines.some((l) => l.req?.url?.startsWith('/api/v1/keys')),
      'other routes still log each request',
    );

    const { app: verbose, logs: verboseLogs } = await buildTestApp(t, {
      dialect: 'sqlite',
      captureLogs: true,
      config: { logLevel: 'debug' },
    });
    const other = await environmentFixture(verbose);
    const res = await getConfig(verbose, other.sdk);
    const logged = verboseLogs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((l) => l.reqId === res.headers['x-request-id']);
    assert.deepEqual(
      logged.map((l) => [l.level, l.msg]),
      [
        [20, 'incoming request'],
        [20, 'request completed'],
      ],
    );
    assert.doesNotMatch(verboseLogs(), new RegExp(other.sdk), 'keys never reach the logs');
  });
});
