// The `ensign insights` commands against a real server (SQLite), as a user runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliUser, runCli } from '../../../../test/helpers/cli-runner.js';
import { startTestServer } from '../../../../test/helpers/e2e-server.js';
import { telemetryApp } from '../ingestion/telemetry.fixtures.js';

test('ensign insights query and events, in every format', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'insights-cli');
  const s = await telemetryApp(app);
  const now = Date.now();
  const events = Array.from({ length: 24 }, (_, i) => ({
    id: `cli-${i}`,
    kind: 'exposure',
    timestamp: new Date(now - 60_000).toISOString(),
    targetingKey: `person-${i}`,
    flagKey: 'shown',
    variant: 'on',
  }));
  const sent = await app.inject({
    method: 'POST',
    url: '/api/v1/events/batch',
    headers: { authorization: `Bearer ${s.sdkProd}` },
    payload: { schemaVersion: 1, events },
  });
  assert.equal(sent.json().accepted, 24, sent.body);
  const { env, ok } = cliUser(address, s.user.token, dir);
  const common = ['--app', s.appId, '--env', 'prod'];
  const q = [...common, '--dimensions', 'flagKey,variant', '--measures', 'events,subjects'];

  const json = JSON.parse(await ok(['insights', 'query', ...q, '--json']));
  assert.deepEqual(
    json.rows.map((r: any) => [r.dimensions, r.measures]),
    [
      [
        { flagKey: 'shown', variant: 'on' },
        { events: 24, subjects: 24 },
      ],
    ],
  );
  const csv = await ok(['insights', 'query', ...q, '--format', 'csv']);
  assert.deepEqual(csv.trimEnd().split('\n'), [
    'bucketStart,flagKey,variant,events,subjects',
    `${json.rows[0].bucketStart},shown,on,24,24`,
  ]);
  const table = await ok(['insights', 'query', ...q]);
  assert.match(table, /shown\s+on\s+24\s+24/);

  const nd = await ok(['insights', 'events', ...common, '--kinds', 'exposure', '--limit', '5', '--format', 'ndjson']);
  const lines = nd
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 5);
  const page = JSON.parse(await ok(['insights', 'events', ...common, '--limit', '5', '--json']));
  assert.deepEqual(page.events, lines);
  assert.match(page.nextCursor, /^ie1_/);
  // The same query (a fixed window: the default `--to` moves) continues where the page ended.
  const window = ['--from', new Date(now - 3_600_000).toISOString(), '--to', new Date(now).toISOString()];
  const first = JSON.parse(await ok(['insights', 'events', ...common, ...window, '--limit', '5', '--json']));
  const second = JSON.parse(
    await ok(['insights', 'events', ...common, ...window, '--limit', '5', '--cursor', first.nextCursor, '--json']),
  );
  assert.equal(second.events.length, 5);
  assert.equal(new Set([...first.events, ...second.events].map((e: any) => e.id)).size, 10);
  for (const out of [json, csv, table, nd]) assert.doesNotMatch(JSON.stringify(out), /person-/);

  const bad = await runCli(['insights', 'query', ...common, '--format', 'xml'], env);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--format/);
});
