// Our signer and the Standard Webhooks reference library agree on every message: the library
// verifies what we sign, and signs what we sign, for any id, time and body (non-Latin-1 text,
// control characters, empty bodies), with and without the `whsec_` prefix.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { signingKeyOf, signWebhook } from './webhook-signature.js';

test("signatures equal the reference library's, and it verifies them", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 24, maxLength: 64 }),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 4_102_444_800 }),
      fc.string({ unit: 'binary', maxLength: 2000 }),
      fc.boolean(),
      (bytes, id, seconds, body, prefixed) => {
        const secret = `${prefixed ? 'whsec_' : ''}${Buffer.from(bytes).toString('base64')}`;
        const ours = signWebhook(signingKeyOf(secret), id, seconds, body);
        const reference = new Webhook(secret);
        assert.equal(ours, reference.sign(id, new Date(seconds * 1000), body));
        if (Math.abs(seconds - Date.now() / 1000) < 300)
          reference.verify(body, { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': ours });
      },
    ),
    { numRuns: 300 },
  );
});

test("a signature made now verifies with the reference library, also beside a second key's", () => {
  const a = `whsec_${randomBytes(32).toString('base64')}`;
  const b = `whsec_${randomBytes(32).toString('base64')}`;
  const seconds = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ events: [{ id: 'é✓\u0001', value: '𝄞' }] });
  const header = [a, b].map((s) => signWebhook(signingKeyOf(s), 'dlv_1', seconds, body)).join(' ');
  for (const s of [a, b])
    new Webhook(s).verify(body, {
      'webhook-id': 'dlv_1',
      'webhook-timestamp': String(seconds),
      'webhook-signature': header,
    });
  assert.throws(() =>
    new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, {
      'webhook-id': 'dlv_1',
      'webhook-timestamp': String(seconds),
      'webhook-signature': header,
    }),
  );
});
