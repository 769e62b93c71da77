// GET /metrics: Prometheus metrics of the app (platform/metrics.ts), lane requests counted like
// Fastify's, and served to loopback clients or to holders of the metrics token only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects, type TestApp } from '../../test/helpers/test-app.js';
import { changeFlags, flagsFixture, FLAGS } from '../modules/delivery/evaluation/evaluation.fixtures.js';
import { waitFor } from '../../test/helpers/polling.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function scrape(test: TestApp): Promise<string> {
  const res = await test.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return res.body;
}

/** The value of the sample `name{labels}` (labels in any order), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const parse = (spec: string) => {
    const brace = spec.indexOf('{');
    const name = brace < 0 ? spec : spec.slice(0, brace);
    const labels = brace < 0 ? [] : (spec.slice(brace + 1, -1).match(/\w+="[^"]*"/g) ?? []);
    return `${name}|${[...labels].sort().join(',')}`;
  };
  const wanted = parse(series);
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    if (parse(line.slice(0, space)) === wanted) return Number(line.slice(space + 1));
  }
  return undefined;
}

for (const dialect of dialects) {
  describe(`metrics (${dialect})`, () => {
    test("requests are counted by route pattern, method and status, the fast lane's with the same labels", async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await test.app.listen({ port: 0, host: '127.0.0.1' });
      const before = test.app.fastLane.stats.served;
      const body = JSON.stringify({ flagKey: 'checkout', context: { targetingKey: 'u' } });
      const overHttp = await fetch(`${base}/api/v1/evaluate`, {
        method: 'POST',
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS },
        body,
      });
      assert.equal(overHttp.status, 200);
      assert.equal(test.app.fastLane.stats.served, before + 1, 'answered by the lane');
      const injected = await test.app.inject({
        method: 'POST',
        url: '/api/v1/evaluate',
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS },
        payload: body,
      });
      assert.equal(injected.statusCode, 200);
      await fetch(`${base}/api/ofrep/v1/evaluate/flags/nope`, {
        method: 'POST',
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS },
        body: '{"context":{}}',
      });
      await test.app.inject({ method: 'GET', url: '/no/such/route' });

      const text = await scrape(test);
      const labels = 'method="POST",route="/api/v1/evaluate",status="200"';
      assert.equal(sample(text, `ensign_http_requests_total{${labels}}`), 2, text);
      assert.equal(sample(text, `ensign_http_request_duration_seconds_count{${labels}}`), 2);
      assert.equal(sample(text, `ensign_http_request_duration_seconds_bucket{le="+Inf",${labels}}`), 2);
      assert.ok(sample(text, `ensign_http_request_duration_seconds_sum{${labels}}`)! > 0);
      assert.equal(
        sample(
          text,
          'ensign_http_requests_total{method="POST",route="/api/ofrep/v1/evaluate/flags/:key",status="404"}',
        ),
        1,
      );
      assert.equal(sample(text, 'ensign_http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
      const evaluations = text
        .split('\n')
        .filter((l) => l.startsWith('ensign_evaluations_total{reason='))
        .reduce((n, l) => n + Number(l.split(' ')[1]), 0);
      assert.ok(evaluations >= 2, 'evaluations by reason');
      assert.ok(sample(text, 'ensign_snapshot_rebuilds_total{kind="delivery"}')! >= 1);
      assert.ok(sample(text, 'ensign_snapshot_rebuilds_total{kind="evaluation"}')! >= 1);
      assert.ok(sample(text, 'ensign_process_cpu_user_seconds_total') !== undefined, 'process metrics');
      if (dialect === 'postgres') assert.equal(sample(text, 'ensign_db_pool_connections{state="max"}'), 5);
      else assert.ok(sample(text, 'ensign_db_sqlite_size_bytes')! > 0);
    });

    test('syncs, quota refusals and change notifications are counted', async (t) => {
      const quotas = { configSyncs: 2, apps: 10, flags: 500 };
      const test = await buildTestApp(t, { dialect, config: { quotas: { free: quotas, pro: quotas } } });
      const fx = await flagsFixture(test);
      for (let i = 0; i < 3; i++)
        await test.app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(fx.sdk) });
      const text = await scrape(test);
      assert.equal(sample(text, 'ensign_config_syncs_total'), 2);
      assert.equal(sample(text, 'ensign_config_sync_refusals_total{reason="quota"}'), 1);
      const notified = sample(text, 'ensign_config_change_notifications_total{source="notification"}') ?? 0;
      await changeFlags(test, fx, [{ ...FLAGS[0]!, description: 'changed' }]);
      // On PostgreSQL the notification travels through the database.
      await waitFor(
        async () =>
          sample(await scrape(test), 'ensign_config_change_notifications_total{source="notification"}')! > notified,
      );
    });

    test('served to loopback clients only, unless a token is set: then to its holders only', async (t) => {
      const open = await buildTestApp(t, { dialect });
      assert.equal((await open.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' })).statusCode, 200);
      const remote = await open.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3' });
      assert.equal(remote.statusCode, 403);
      assert.equal(remote.json().error.code, 'forbidden');

      const token = 'metrics-token-0123456789';
      const guarded = await buildTestApp(t, { dialect, config: { metricsToken: token } });
      for (const [headers, status] of [
        [{}, 401],
        [bearer('wrong-token-0123456789'), 401],
        [bearer(token), 200],
      ] as const) {
        for (const remoteAddress of ['127.0.0.1', '10.1.2.3']) {
          const res = await guarded.app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress });
          assert.equal(res.statusCode, status, `${JSON.stringify(headers)} from ${remoteAddress}`);
        }
      }
    });
  });
}
