// Over-limit bodies over real HTTP: the client must read the 413, not a connection reset. Refusing on
// Content-Length and closing the socket with the body unread made the kernel reset the connection
// while the client was still sending, about a third of the time for a 4 MB body.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { bearer } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { flagsFixture } from '../modules/delivery/evaluation/evaluation.fixtures.js';
import { MAX_DISCARDED_BODY_BYTES } from './body-limit.js';

const FOUR_MB = 4 * 1024 * 1024;

/** A JSON body of `size` bytes. */
const bodyOf = (size: number) =>
  Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(size - 10, 'a'), Buffer.from('"}')]);

/** Sends the body in chunks of 64 KiB, as a client on a real network does (chunked when asked). */
function chunked(body: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.subarray(offset, (offset += 64 * 1024)));
    },
  });
}

/**
 * A client that reads only once it has sent its whole request, as curl and most SDKs do: resolves
 * with the status line it then reads, or the socket error it got instead (the reset of the bug).
 */
function sendAllThenRead(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  chunkedEncoding: boolean,
): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.pause();
    let received = '';
    const settle = (outcome: string) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.on('data', (chunk) => {
      received += chunk;
      if (received.includes('\r\n\r\n')) settle(received.split('\r\n')[0]!);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => settle(`${error.code} with ${JSON.stringify(received)} read`));
    socket.on('close', () => settle(`closed with ${JSON.stringify(received)} read`));
    const head = Object.entries({ host: 'x', 'content-type': 'application/json', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `POST ${path} HTTP/1.1\r\n${head}${chunkedEncoding ? 'transfer-encoding: chunked' : `content-length: ${body.length}`}\r\n\r\n`,
    );
    if (chunkedEncoding) {
      for (let offset = 0; offset < body.length; offset += 64 * 1024) {
        const piece = body.subarray(offset, offset + 64 * 1024);
        socket.write(`${piece.length.toString(16)}\r\n`);
        socket.write(piece);
        socket.write('\r\n');
      }
      socket.write('0\r\n\r\n');
    } else {
      socket.write(body);
    }
    // Everything handed to the kernel: now read (a reset by then has discarded the answer).
    socket.write('', () => setTimeout(() => socket.resume(), 20));
  });
}

for (const dialect of dialects) {
  describe(`over-limit bodies on ${dialect}`, () => {
    test("a 4 MB body gets the 413 in the route's error shape, every time, with Content-Length or chunked", async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const { app } = fixture;
      const fx = await flagsFixture(fixture);
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const body = bodyOf(FOUR_MB);
      const routes: { url: string; token: string; code: (json: any) => string }[] = [
        { url: '/api/v1/apps', token: fx.user.token, code: (json) => json.error.code },
        { url: '/api/v1/evaluate', token: fx.sdk, code: (json) => json.code },
        { url: '/api/ofrep/v1/evaluate/flags', token: fx.pub, code: (json) => json.errorCode },
      ];
      const expected: Record<string, string> = {
        '/api/v1/apps': 'payload_too_large',
        '/api/v1/evaluate': 'PAYLOAD_TOO_LARGE',
        '/api/ofrep/v1/evaluate/flags': 'PAYLOAD_TOO_LARGE',
      };
      for (const route of routes) {
        for (let round = 0; round < 6; round++) {
          const streamed = round % 2 === 1;
          const res = await fetch(base + route.url, {
            method: 'POST',
            headers: { ...bearer(route.token), 'content-type': 'application/json' },
            body: streamed ? chunked(body) : body,
            ...(streamed ? { duplex: 'half' } : {}),
          } as RequestInit);
          assert.equal(res.status, 413, `${route.url} round ${round}`);
          assert.equal(route.code(await res.json()), expected[route.url]);
        }
      }
      // The server is fine afterwards, and bodies within the limit still work over the same server.
      const ok = await fetch(`${base}/api/v1/evaluate`, {
        method: 'POST',
        headers: { ...bearer(fx.sdk), 'content-type': 'application/json' },
        body: JSON.stringify({ flagKey: 'dark-mode', context: {} }),
      });
      assert.equal(ok.status, 200, await ok.text());
    });

    test('a client that sends its whole 4 MB body before reading gets the 413, not a reset', async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const { app } = fixture;
      const fx = await flagsFixture(fixture);
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const body = bodyOf(FOUR_MB);
      for (const [path, token] of [
        ['/api/v1/apps', fx.user.token],
        ['/api/v1/evaluate', fx.sdk],
        ['/api/ofrep/v1/evaluate/flags', fx.pub],
      ] as const) {
        for (const chunkedEncoding of [false, true, false]) {
          const outcome = await sendAllThenRead(base, path, bearer(token), body, chunkedEncoding);
          assert.equal(outcome, 'HTTP/1.1 413 Payload Too Large', `${path}${chunkedEncoding ? ' (chunked)' : ''}`);
        }
      }
    });

    test('past the discard cap the server stops reading and closes at once, whatever the client says it sends', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
      /**
       * Sends `head` (and `body`), then waits for the server to close the connection: what it
       * answered and how long the close took. The request timeout (30 s) would close it too, so the
       * time is what proves the close.
       */
      const closedAfter = (head: string, body: Buffer | string = '') =>
        new Promise<{ received: string; ms: number }>((resolve) => {
          const started = Date.now();
          const socket = connect(Number(base.port), base.hostname);
          let received = '';
          socket.on('data', (chunk) => (received += chunk));
          socket.on('error', () => undefined);
          // Not closed within 5 s: it was left to the request timeout.
          const giveUp = setTimeout(() => socket.destroy(), 5000);
          socket.on('close', () => {
            clearTimeout(giveUp);
            resolve({ received, ms: Date.now() - started });
          });
          socket.write(head);
          if (body.length > 0) socket.write(body);
        });
      // Declares far more than the cap: answered at once (the client may see a reset: it was told
      // nothing it could use by sending on), and the connection closed with it.
      const declared = await closedAfter(
        `POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MAX_DISCARDED_BODY_BYTES * 4}\r\n\r\n{"pad":"`,
      );
      assert.match(declared.received, /^HTTP\/1\.1 413 /);
      assert.match(declared.received, /\r\nconnection: close\r\n/i);
      assert.ok(declared.ms < 2000, `closed after ${declared.ms} ms (the server left it open)`);
      // Chunked past the cap: the same.
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      const pieces = Array.from({ length: Math.ceil(MAX_DISCARDED_BODY_BYTES / chunk.length) + 2 }, () =>
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
      );
      const streamed = await closedAfter(
        'POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        Buffer.concat(pieces),
      );
      assert.match(streamed.received, /^HTTP\/1\.1 413 /);
      assert.match(streamed.received, /\r\nconnection: close\r\n/i);
      assert.ok(streamed.ms < 4000, `closed after ${streamed.ms} ms (the server left it open)`);
    });

    test('an over-limit body read to its end leaves the connection usable (keep-alive)', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
      const body = bodyOf(2 * 1024 * 1024);
      const answers = await new Promise<string>((resolve) => {
        const socket = connect(Number(base.port), base.hostname);
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk;
          // Two answers: the 413, then the health check sent on the same connection.
          if ((received.match(/HTTP\/1\.1 /g) ?? []).length === 2 && received.endsWith('}')) {
            socket.destroy();
            resolve(received);
          }
        });
        socket.on('error', () => resolve(received));
        socket.write(
          `POST /api/v1/apps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body);
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      assert.match(answers, /^HTTP\/1\.1 413 /);
      assert.doesNotMatch(answers.split('HTTP/1.1 200')[0]!, /connection: close/i);
      assert.match(answers, /HTTP\/1\.1 200 OK[\s\S]*"status":"ok"/);
    });
  });
}
