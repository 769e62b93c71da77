// The fast lane on the connections it shares with Fastify: keep-alive connections carrying requests
// of both ways in turn, and a client that leaves halfway through its body.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { bearer } from '../helpers/fixtures.js';
import { buildTestApp, dialects } from '../helpers/test-app.js';
import { flagsFixture } from '../../src/modules/delivery/evaluation/evaluation.fixtures.js';
import { EVALUATE, expectSameAnswer, JSON_HEADERS, listening } from './fast-lane.fixtures.js';

for (const dialect of dialects) {
  describe(`fast lane connections (${dialect})`, () => {
    test('keep-alive connections carry lane and framework requests in turn', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      const bodies = ['{"flagKey":"limit","context":{"targetingKey":"a"}}', '{"context":', '{"context":{}}'];
      const served = test.app.fastLane.stats.served;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          fetch(base + (i % 3 === 2 ? `${EVALUATE}?x=1` : EVALUATE), {
            method: 'POST',
            headers: sdk,
            body: bodies[i % 3],
          }).then(async (res) => [res.status, await res.json()] as const),
        ),
      );
      for (const [i, [status, json]] of answers.entries()) {
        if (i % 3 === 1) assert.equal(status, 400);
        else assert.equal(status, 200, JSON.stringify(json));
      }
      assert.ok(test.app.fastLane.stats.served > served && test.app.fastLane.stats.served < served + 60);
    });

    test('a client that leaves halfway through its body costs nothing but its connection', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await expectSameAnswer(test, base, {
        name: 'warm',
        url: EVALUATE,
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 200,
      });
      const { port } = new URL(base);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST ${EVALUATE} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${fx.sdk}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"context":`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', reject);
      });
      const served = test.app.fastLane.stats.served;
      await expectSameAnswer(test, base, {
        name: 'after the abort',
        url: EVALUATE,
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 200,
      });
      assert.equal(test.app.fastLane.stats.served, served + 1);
    });

    test('a body that arrives in pieces, with a known and with an unknown key, is read whole', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const { port } = new URL(base);
      const body = '{"flagKey":"limit","context":{"targetingKey":"a"}}';
      /** One request over a raw socket: the head with the body's first `split` bytes, the rest 30 ms later. */
      const send = (key: string, split: number) =>
        new Promise<string>((resolve, reject) => {
          let answer = '';
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(
              `POST ${EVALUATE} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body.slice(0, split)}`,
            );
            setTimeout(() => socket.write(body.slice(split)), 30);
          });
          socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
          socket.on('end', () => resolve(answer));
          socket.on('error', reject);
        });
      const served = test.app.fastLane.stats.served;
      // The key unknown to the process: read from the database while the first piece waits in the stream.
      const cold = await send(fx.sdk, 20);
      for (const split of [0, 1, 20, body.length - 1]) {
        const answer = await send(fx.sdk, split);
        assert.match(answer, /^HTTP\/1\.1 200 /, answer);
        assert.equal(answer.slice(answer.indexOf('\r\n\r\n') + 4), cold.slice(cold.indexOf('\r\n\r\n') + 4));
      }
      assert.match(cold, /^HTTP\/1\.1 200 /, cold);
      assert.match(cold, /"key":"limit"/);
      assert.equal(test.app.fastLane.stats.served, served + 5, 'every one answered by the lane');
    });
  });
}
