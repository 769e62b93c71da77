// No credential in a logged URL: the OFREP event-stream token (which a browser's EventSource can only
// send in the query string) was written in full to the info log inside the request URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertContainsNone, bearer } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { flagsFixture } from '../modules/delivery/evaluation/evaluation.fixtures.js';
import { redactUrl } from './logging.js';

const TOKEN = `sdk_${'A'.repeat(43)}`;

describe('redactUrl', () => {
  test('query parameters named like a credential lose their value; the others stay', () => {
    assert.equal(
      redactUrl('/api/ofrep/v1/events?token=eyJ0.c2ln&since=4'),
      '/api/ofrep/v1/events?token=[redacted]&since=4',
    );
    assert.equal(
      redactUrl('/x?apiKey=abc&api_key=abc&KEY=abc&keyId=key_1'),
      '/x?apiKey=[redacted]&api_key=[redacted]&KEY=[redacted]&keyId=key_1',
    );
    assert.equal(
      redactUrl('/x?access_token=a&clientSecret=b&password=c&sig=d&signature=e'),
      '/x?access_token=[redacted]&clientSecret=[redacted]&password=[redacted]&sig=[redacted]&signature=[redacted]',
    );
    assert.equal(redactUrl('/x?%74oken=abc'), '/x?%74oken=[redacted]', 'percent-encoded names too');
  });

  test('an Ensign token is redacted wherever it is: any parameter, a bare parameter, a path segment', () => {
    assert.equal(redactUrl(`/x?q=${TOKEN}&appId=app_1`), '/x?q=[redacted]&appId=app_1');
    assert.equal(redactUrl(`/x?${TOKEN}`), '/x?[redacted]');
    assert.equal(redactUrl(`/keys/${TOKEN}/x`), '/keys/[redacted]/x');
    assert.equal(redactUrl(`/x?q=${encodeURIComponent(TOKEN)}`), '/x?q=[redacted]');
  });

  test('URLs without credentials are unchanged', () => {
    for (const url of [
      '/api/v1/flags?appId=app_1&env=prod',
      '/api/ofrep/v1/evaluate/flags/sdk_mode',
      '/',
      '/x?',
      '/x?a&b=&=c',
    ]) {
      assert.equal(redactUrl(url), url);
    }
  });
});

for (const dialect of dialects) {
  describe(`logged URLs on ${dialect}`, () => {
    test('the event-stream token and credentials in query strings never reach the log', async (t) => {
      const fixture = await buildTestApp(t, { dialect, captureLogs: true });
      const { app, logs } = fixture;
      const fx = await flagsFixture(fixture);
      const bulk = await app.inject({
        method: 'POST',
        url: '/api/ofrep/v1/evaluate/flags',
        headers: bearer(fx.pub),
        payload: { context: {} },
      });
      const requestUri: string = bulk.json().eventStreams[0].endpoint.requestUri;
      const streamToken = new URL(requestUri, 'http://x').searchParams.get('token')!;
      assert.ok(streamToken.length > 20);

      // The stream itself, as a browser opens it, over real HTTP.
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const abort = new AbortController();
      const stream = await fetch(base + requestUri, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
      assert.equal(stream.status, 200);
      abort.abort();
      await stream.body?.cancel().catch(() => undefined);
      // Credentials sent where they do not belong.
      await app.inject({ method: 'GET', url: `/api/v1/apps?token=${fx.user.token}` });
      await app.inject({ method: 'GET', url: `/api/v1/flags?appId=${fx.target.appId}&env=prod&apiKey=${fx.admin}` });
      await app.inject({ method: 'GET', url: `/api/v1/config?key=${fx.sdk}` });

      const text = logs();
      assert.ok(
        text.includes('"url":"/api/ofrep/v1/events?token=[redacted]"'),
        'the stream request is logged, redacted',
      );
      assert.ok(text.includes(`appId=${fx.target.appId}&env=prod&apiKey=[redacted]`), 'what was asked stays readable');
      assertContainsNone(
        text,
        [streamToken, streamToken.split('.')[1]!, fx.user.token, fx.admin, fx.sdk, fx.pub],
        'the log',
      );
    });
  });
}
