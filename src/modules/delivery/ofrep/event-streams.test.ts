// The event hub on its own, with short timers: event format, heartbeats, Last-Event-ID and recent
// changes on connect, and streams ended by token expiry, revocation and shutdown.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createEventHub } from './event-streams.js';
import type { StreamGrant } from './stream-token.js';

class FakeResponse extends EventEmitter {
  status = 0;
  headers: Record<string, unknown> = {};
  chunks: string[] = [];
  writableEnded = false;
  destroyed = false;
  writeHead(status: number, headers: Record<string, unknown>) {
    this.status = status;
    this.headers = headers;
  }
  write(chunk: string) {
    this.chunks.push(chunk);
    return true;
  }
  end() {
    this.writableEnded = true;
  }
  get text() {
    return this.chunks.join('');
  }
}

function setup(options: { revoked?: () => boolean; heartbeatMs?: number; recheckMs?: number } = {}) {
  let announce: (envId: string, version: number) => void = () => undefined;
  const hub = createEventHub({
    source: { onChange: (listener) => ((announce = listener), () => undefined) },
    keyRevoked: async () => options.revoked?.() ?? false,
    heartbeatMs: options.heartbeatMs ?? 20,
    recheckMs: options.recheckMs,
    log: { warn: () => undefined },
  });
  const open = (grant: Partial<StreamGrant> = {}, version = 3, lastEventId?: number) => {
    const res = new FakeResponse();
    const full: StreamGrant = {
      type: 'pub',
      appId: 'app_1',
      envId: 'env_1',
      env: 'prod',
      keyId: 'key_1',
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      ...grant,
    };
    hub.open(full, res as unknown as ServerResponse, { 'x-request-id': 'req_1' }, version, lastEventId);
    return res;
  };
  return { hub, open, announce: (envId: string, version: number) => announce(envId, version) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dataOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));

describe('OFREP event hub', () => {
  test('a stream starts with retry and its version as last event id, then gets refetchEvaluation for its environment only', async (t) => {
    const { hub, open, announce } = setup();
    t.after(() => hub.close());
    const res = open();
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(res.headers['x-request-id'], 'req_1', "the request's own headers are kept");
    assert.match(res.text, /^retry: \d+\n: connected\nid: 3\n\n$/);
    announce('env_other', 9);
    announce('env_1', 4);
    const events = dataOf(res.text);
    assert.equal(events.length, 1);
    assert.deepEqual(Object.keys(events[0]).sort(), ['etag', 'lastModified', 'type']);
    assert.equal(events[0].type, 'refetchEvaluation');
    assert.equal(events[0].etag, '4');
    assert.ok(Number.isInteger(events[0].lastModified));
    assert.match(res.text, /id: 4\ndata: /);
    assert.equal(hub.size(), 1);
  });

  test('reconnects behind the current version, and connections right after a change, are told to refetch', async (t) => {
    const { hub, open, announce } = setup();
    t.after(() => hub.close());
    assert.equal(dataOf(open({}, 5, 5).text).length, 0);
    assert.equal(dataOf(open({}, 5, 4).text)[0].etag, '5');
    announce('env_1', 6);
    assert.equal(dataOf(open({}, 6).text)[0].etag, '6', 'a change moments ago may have been missed');
  });

  test('heartbeats keep streams open; expired tokens and revoked keys end them', async (t) => {
    let revoked = false;
    const { hub, open } = setup({ revoked: () => revoked, heartbeatMs: 15, recheckMs: 0 });
    t.after(() => hub.close());
    const live = open();
    const expiring = open({ expiresAt: Math.floor(Date.now() / 1000) + 1 });
    await sleep(60);
    assert.match(live.text, /: heartbeat\n\n/);
    assert.ok(!live.writableEnded);
    await sleep(1100);
    assert.ok(expiring.writableEnded, "ended at its token's expiry");
    assert.ok(!live.writableEnded);
    revoked = true;
    await sleep(80);
    assert.ok(live.writableEnded, 'ended once its key is found revoked');
    assert.equal(hub.size(), 0);
  });

  test('a closed connection leaves the hub; close() ends every stream', async () => {
    const { hub, open } = setup();
    const gone = open();
    gone.emit('close');
    assert.equal(hub.size(), 0);
    const a = open();
    const b = open({ envId: 'env_2' });
    hub.close();
    assert.ok(a.writableEnded && b.writableEnded);
    assert.equal(hub.size(), 0);
  });
});
