// The sender trusts the system's CAs plus the CA file, and nothing else: the CA setting is built into
// one TLS context (not copied into every request), and a receiver whose certificate no trusted CA
// signed gets no request, with the TLS failure as the attempt's message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { receiver, HOST } from './exports.fixtures.js';
import { createWebhookSender } from './webhook-sender.js';

test('a receiver certified by the CA file is trusted, over one kept connection; without the CA file its certificate is refused', async (t) => {
  const rx = await receiver(t, () => 202);
  const policy = { allowedHosts: [HOST], allowPrivateNetworks: true, resolve: { [HOST]: rx.address } };
  const trusting = createWebhookSender({ ...policy, caFile: rx.caFile });
  const target = { url: `https://${HOST}/in`, address: rx.address };
  for (let i = 0; i < 3; i++)
    assert.deepEqual(await trusting(target, { 'webhook-id': `msg_${i}` }, '{}'), { status: 202, message: 'ok' });
  assert.deepEqual(
    rx.received.map((r) => r.headers['webhook-id']),
    ['msg_0', 'msg_1', 'msg_2'],
  );
  assert.equal(rx.received[0]!.headers.host, HOST);

  const strict = createWebhookSender(policy);
  const refused = await strict(target, { 'webhook-id': 'msg_x' }, '{}');
  assert.equal(refused.status, null);
  assert.match(refused.message, /self.signed certificate/i);
  assert.equal(rx.received.length, 3, 'nothing reached the receiver');
});
