// Requests Node cannot read (oversized headers, a malformed Content-Length or request line) never
// reach Fastify's error handler: they answered in Fastify's own body shape. Over raw sockets here,
// since app.inject has no HTTP parser. Also: text bodies are 415 on the environment-key routes, and
// integers in paths and queries have an upper bound.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { bearer, call, userWithApp } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { flagsFixture } from '../modules/delivery/evaluation/evaluation.fixtures.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as it is and reads the answer until the server closes the connection. */
function raw(base: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(request);
  });
}

function expectContractError(answer: RawAnswer, status: number, code: string) {
  assert.equal(answer.status, status, answer.body);
  assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
  const error = JSON.parse(answer.body).error;
  assert.equal(error.code, code, answer.body);
  assert.ok(error.message.length > 0 && error.resolution.length > 0);
  assert.match(error.requestId, /^req_/);
  assert.equal(answer.headers['x-request-id'], error.requestId);
  return error;
}

for (const dialect of dialects) {
  describe(`errors raised before routing on ${dialect}`, () => {
    test("oversized headers, bad lengths and malformed requests answer in the contract's error body", async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const big = `x-padding: ${'p'.repeat(20 * 1024)}\r\n`;
      expectContractError(
        await raw(base, `GET /api/v1/apps HTTP/1.1\r\nHost: x\r\n${big}\r\n`),
        431,
        'headers_too_large',
      );
      const body = '{"name":"Shop","slug":"shop"}';
      for (const length of ['abc', '-1', '1.5']) {
        const answer = await raw(
          base,
          `POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`,
        );
        assert.match(JSON.parse(answer.body).error.message, /Content-Length/);
        expectContractError(answer, 400, 'validation_error');
      }
      const both = await raw(
        base,
        `POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1}`,
      );
      expectContractError(both, 400, 'validation_error');
      expectContractError(await raw(base, 'GET /api/v1/apps HTTP/1.1\r\nHost x\r\n\r\n'), 400, 'validation_error');
      expectContractError(await raw(base, 'BREW\x01 / HTTP/1.1\r\n\r\n'), 400, 'validation_error');
      // The server is unharmed.
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
    });

    test('under /api/ofrep/ they also carry the CORS headers a browser needs to read them', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const answer = await raw(
        base,
        `POST /api/ofrep/v1/evaluate/flags HTTP/1.1\r\nHost: x\r\nOrigin: https://shop.example\r\nx-padding: ${'p'.repeat(20 * 1024)}\r\n\r\n`,
      );
      expectContractError(answer, 431, 'headers_too_large');
      assert.equal(answer.headers['access-control-allow-origin'], '*');
      const elsewhere = await raw(
        base,
        `GET /api/v1/apps HTTP/1.1\r\nHost: x\r\nx-padding: ${'p'.repeat(20 * 1024)}\r\n\r\n`,
      );
      assert.equal(elsewhere.headers['access-control-allow-origin'], undefined, 'CORS only where the routes have it');
    });

    test('a text body holding JSON is 415 on the evaluation and OFREP routes too, in their shapes', async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(fixture);
      const text = { 'content-type': 'text/plain' };
      const evaluate = await fixture.app.inject({
        method: 'POST',
        url: '/api/v1/evaluate',
        headers: { ...bearer(fx.sdk), ...text },
        payload: JSON.stringify({ flagKey: 'dark-mode', context: {} }),
      });
      assert.equal(evaluate.statusCode, 415, evaluate.body);
      assert.equal(evaluate.json().code, 'UNSUPPORTED_MEDIA_TYPE');
      const ofrep = await fixture.app.inject({
        method: 'POST',
        url: '/api/ofrep/v1/evaluate/flags',
        headers: { ...bearer(fx.pub), ...text },
        payload: JSON.stringify({ context: {} }),
      });
      assert.equal(ofrep.statusCode, 415, ofrep.body);
      assert.equal(ofrep.json().errorCode, 'UNSUPPORTED_MEDIA_TYPE');
    });

    test('integers in paths and queries are bounded: a version past the stored range is 400, not "version 1e+20"', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      const scope = `appId=${s.appId}&env=dev`;
      for (const url of [
        `/api/v1/config-versions/99999999999999999999?${scope}`,
        `/api/v1/config-versions/2147483648?${scope}`,
        `/api/v1/config-versions/diff?${scope}&from=0&to=99999999999999999999`,
      ]) {
        const res = await call(app, 'GET', url, { token: s.user.token });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(res.json().error.code, 'validation_error');
        assert.ok(!res.body.includes('e+'), res.body);
      }
      const patch = await call(app, 'PATCH', '/api/v1/flags', {
        token: s.user.token,
        payload: { appId: s.appId, env: 'dev', key: 'k', type: 'bool', value: true, expectedVersion: 1e20 },
      });
      assert.equal(patch.statusCode, 400, patch.body);
      assert.equal(
        (await call(app, 'GET', `/api/v1/config-versions/2147483647?${scope}`, { token: s.user.token })).statusCode,
        404,
        'the largest version is a version that does not exist',
      );
    });
  });
}
