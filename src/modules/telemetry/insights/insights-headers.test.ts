// Issue 18: client text reaches the X-Insights-* headers (the watermark names the newest event id).
// Header values are printable ASCII whatever the id holds, and JSON.parse gives the id back exactly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { exposure, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Ids a client may send (1 to 128 characters): Latin-1, Cyrillic, CJK, emoji, DEL, a quote and a backslash. */
const IDS = ['ü-1', 'событие-2', '事件-3', 'evt-😀-4', 'del-\u007f-5', 'quote-"-\\-6', 'c1-\u0085-7'];

/** The raw bytes of a response's header block, over real HTTP. */
function rawHeaders(port: number, token: string, body: unknown): Promise<{ status: number; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/insights/query',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        // rawHeaders are the strings Node decoded as Latin-1: each character is one byte of the wire.
        res.on('end', () =>
          resolve({ status: res.statusCode!, head: Buffer.from(res.rawHeaders.join('\n'), 'latin1') }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function assertAsciiHeaders(res: { headers: Record<string, unknown> }, where: string) {
  for (const [name, value] of Object.entries(res.headers))
    assert.match(String(value), PRINTABLE_ASCII, `${where}: ${name} is not printable ASCII`);
}

for (const dialect of dialects) {
  describe(`insight headers on ${dialect}`, () => {
    test('an event id outside ASCII is escaped in X-Insights-Watermark and X-Insights-Metadata, in every format', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const body = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events'],
      };
      for (const id of IDS) {
        clock.advance(1000);
        const sent = await sendBatch(app, s.sdkProd, [{ ...exposure(T0 - 60_000, 'subject-1'), id }]);
        assert.equal(sent.json().results[0].status, 'accepted', sent.body);
        for (const format of ['json', 'csv', 'ndjson']) {
          const res = await call(app, 'POST', '/api/v1/insights/query', {
            token: s.user.token,
            payload: { ...body, format },
          });
          assert.equal(res.statusCode, 200, `${JSON.stringify(id)} ${format}: ${res.body}`);
          assertAsciiHeaders(res, `${JSON.stringify(id)} ${format}`);
          assert.equal(JSON.parse(String(res.headers['x-insights-watermark'])).eventId, id);
          assert.equal(JSON.parse(String(res.headers['x-insights-metadata'])).watermark.eventId, id);
          if (format === 'json') assert.equal(res.json().watermark.eventId, id, 'the body keeps the id exactly');
        }
        const events = await call(app, 'POST', '/api/v1/insights/events', {
          token: s.user.token,
          payload: {
            appId: s.appId,
            env: 'prod',
            from: iso(T0 - HOUR),
            to: iso(T0),
            kinds: ['exposure'],
            format: 'ndjson',
          },
        });
        assert.equal(events.statusCode, 200, events.body);
        assertAsciiHeaders(events, `${JSON.stringify(id)} events`);
      }
    });

    test('over real HTTP the header block is ASCII bytes and a Latin-1 id reads back exactly', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const body = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events'],
        format: 'csv',
      };
      for (const id of ['ü-latin1', '事件-cjk']) {
        clock.advance(1000);
        assert.equal(
          (await sendBatch(app, s.sdkProd, [{ ...exposure(T0 - 60_000, 'subject-1'), id }])).json().accepted,
          1,
        );
        const { status, head } = await rawHeaders(port, s.user.token, body);
        assert.equal(status, 200);
        assert.ok(
          head.every((byte) => byte === 0x0a || (byte >= 0x20 && byte <= 0x7e)),
          `${id}: a header byte outside printable ASCII`,
        );
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/insights/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.user.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(
          JSON.parse(res.headers.get('x-insights-watermark')!).eventId,
          id,
          'fetch reads the id back exactly',
        );
        await res.text();
      }
    });
  });
}
