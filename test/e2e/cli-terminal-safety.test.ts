// Text anyone with a pub_ key chooses (variants, metric keys, event ids) and names anyone with an
// account chooses reach the operator's terminal through the CLI's tables: control characters are
// shown as escapes there, while --json keeps every value exact (CONTRACT §7).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { cliUser } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';
import { call } from '../helpers/fixtures.js';
import { telemetryApp } from '../../src/modules/telemetry/ingestion/telemetry.fixtures.js';
import { renderPairs, renderTable } from '../../src/cli/table.js';
import { jsonForTerminal, visible } from '../../src/cli/terminal-text.js';

const CLIPBOARD = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
const CLEAR = '\x1b[2J\x1b[H';
const HOSTILE_VARIANT = `on${CLIPBOARD}${CLEAR}\nFAKE ROW\r\u009b31m\x7f\u202e`;
// U+0000 itself is refused at ingestion (text columns cannot hold it), so SOH stands for the C0 controls here.
const HOSTILE_METRIC = `rev\x01enue\tx`;
const HOSTILE_ID = `id-\x1b[8m-hidden`;
/** Every character a terminal would act on. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

test('visible() escapes C0, DEL, C1 and the Unicode controls; jsonForTerminal keeps values', () => {
  assert.equal(visible(`a\x1b[2Jb`), 'a\\x1b[2Jb');
  assert.equal(visible('\x00\x07\x7f\u0080\u009b\u202e\u2028'), '\\x00\\x07\\x7f\\u0080\\u009b\\u202e\\u2028');
  assert.equal(visible('one\ntwo\r\tthree'), 'one\\ntwo\\r\\tthree');
  assert.equal(visible('one\ntwo\r', true), 'one\ntwo\\r');
  assert.equal(
    visible('plain text, ünïcødé, 日本, emoji 🚀, back\\slash'),
    'plain text, ünïcødé, 日本, emoji 🚀, back\\slash',
  );
  const json = JSON.stringify({ v: HOSTILE_VARIANT });
  assert.doesNotMatch(jsonForTerminal(json), RAW_CONTROL);
  assert.deepEqual(JSON.parse(jsonForTerminal(json)), { v: HOSTILE_VARIANT });
});

test('property: any text renders as one line per row with no raw control character, and JSON keeps it exact', () => {
  // Full Unicode text, weighted towards the characters terminals act on.
  const control = fc.constantFrom(
    '\x1b',
    '\x00',
    '\x07',
    '\n',
    '\r',
    '\t',
    '\x7f',
    '\u0085',
    '\u009b',
    '\u202e',
    '\u2028',
    '\u2066',
  );
  const text = fc
    .array(fc.oneof(control, fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), { maxLength: 8 })
    .map((parts) => parts.join(''));
  fc.assert(
    fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 5 }), (rows) => {
      const table = renderTable(['A', 'B'], rows, { maxCellWidth: 1000 });
      assert.doesNotMatch(table, RAW_CONTROL);
      assert.equal(table.split('\n').length, rows.length + 1);
      const pairs = renderPairs(rows.map(([a, b]): [string, string] => [a, b]));
      assert.doesNotMatch(pairs, RAW_CONTROL);
      assert.equal(pairs.split('\n').length, rows.length);
      const json = jsonForTerminal(JSON.stringify(rows, null, 2));
      assert.doesNotMatch(json, RAW_CONTROL);
      assert.deepEqual(JSON.parse(json), rows);
    }),
    { numRuns: 300 },
  );
});

test('hostile strings through insights events, insights query and list commands: escaped in tables, exact in --json', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'terminal-safety');
  const s = await telemetryApp(app);
  const at = new Date(Date.now() - 60_000).toISOString();
  // 24 subjects, so the query's cell is above the 20-subject suppression threshold.
  const events = [
    ...Array.from({ length: 24 }, (_, i) => ({
      id: `${HOSTILE_ID}-${i}`,
      kind: 'exposure',
      timestamp: at,
      targetingKey: `p-${i}`,
      flagKey: 'shown',
      variant: HOSTILE_VARIANT,
    })),
    ...Array.from({ length: 24 }, (_, i) => ({
      id: `o-${i}`,
      kind: 'outcome',
      timestamp: at,
      targetingKey: `p-${i}`,
      metricKey: HOSTILE_METRIC,
      metricValue: 1,
    })),
  ];
  const sent = await call(app, 'POST', '/api/v1/events/batch', { token: s.pub, payload: { schemaVersion: 1, events } });
  assert.equal(sent.json().accepted, 48, sent.body);
  const { ok } = cliUser(address, s.user.token, dir);
  const common = ['--app', s.appId, '--env', 'prod'];

  const clean = (out: string, label: string) =>
    assert.doesNotMatch(out, RAW_CONTROL, `${label} printed a raw control character: ${JSON.stringify(out)}`);

  const eventsTable = await ok(['insights', 'events', ...common, '--limit', '100']);
  clean(eventsTable, 'insights events');
  // (cells are cut at 60 characters)
  assert.ok(eventsTable.includes('on\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b[2J\\x1b[H\\nFAKE ROW\\r\\u…'), eventsTable);
  assert.ok(eventsTable.includes('rev\\x01enue\\tx'), eventsTable);
  assert.ok(eventsTable.includes('id-\\x1b[8m-hidden-'), eventsTable);
  // One line per event plus the header: no row was faked.
  assert.equal(eventsTable.trimEnd().split('\n').length, 49);

  const queryTable = await ok([
    'insights',
    'query',
    ...common,
    '--dimensions',
    'variant,metricKey',
    '--measures',
    'events',
  ]);
  clean(queryTable, 'insights query');
  assert.ok(queryTable.includes('\\nFAKE ROW'), queryTable);

  const exact = JSON.parse(await ok(['insights', 'events', ...common, '--limit', '100', '--json']));
  assert.ok(exact.events.some((e: { variant?: string }) => e.variant === HOSTILE_VARIANT));
  assert.ok(exact.events.some((e: { metricKey?: string }) => e.metricKey === HOSTILE_METRIC));
  assert.ok(exact.events.some((e: { id: string }) => e.id === `${HOSTILE_ID}-0`));
  const rawJson = await ok([
    'insights',
    'query',
    ...common,
    '--dimensions',
    'variant',
    '--measures',
    'events',
    '--json',
  ]);
  clean(rawJson, '--json');
  assert.ok(
    JSON.parse(rawJson).rows.some((r: { dimensions: { variant: string } }) => r.dimensions.variant === HOSTILE_VARIANT),
  );
  const ndjson = await ok(['insights', 'events', ...common, '--limit', '100', '--format', 'ndjson']);
  clean(ndjson, 'ndjson');
  assert.ok(
    ndjson
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .some((e) => e.variant === HOSTILE_VARIANT),
  );

  // Names in list commands: an app and an experiment metric named by an account holder.
  const named = await call(app, 'POST', '/api/v1/apps', {
    token: s.user.token,
    idem: true,
    payload: { name: `Shop${CLEAR}\u009b2J`, slug: 'hostile-shop' },
  });
  assert.equal(named.statusCode, 201, named.body);
  const apps = await ok(['apps', 'list']);
  clean(apps, 'apps list');
  assert.ok(apps.includes('Shop\\x1b[2J\\x1b[H\\u009b2J'), apps);
  const appsJson = JSON.parse(await ok(['apps', 'list', '--json']));
  assert.ok(appsJson.apps.some((a: { name: string }) => a.name === `Shop${CLEAR}\u009b2J`));
  const described = await call(app, 'PATCH', '/api/v1/flags', {
    token: s.admin,
    payload: {
      appId: s.appId,
      env: 'prod',
      key: 'shown',
      description: `desc${CLIPBOARD}\nFAKE`,
      value: `x${CLEAR}`,
      type: 'string',
      op: 'upsert',
    },
  });
  assert.equal(described.statusCode, 200, described.body);
  for (const args of [
    ['flags', 'list', ...common],
    ['flags', 'get', 'shown', ...common],
  ]) {
    const out = await ok(args);
    clean(out, args.join(' '));
  }
});
