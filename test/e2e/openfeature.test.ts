// End to end: the unmodified OpenFeature server SDK with the OFREP provider against a started Ensign
// server. baseUrl is the service's /api (the provider appends /ofrep/v1/...); the key goes in the
// provider's headers option, as Authorization: Bearer or X-API-Key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenFeature, type Client } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { startEnsign } from './openfeature.fixtures.js';
import { waitFor } from '../helpers/polling.js';

test('the OpenFeature server SDK evaluates Ensign flags through OFREP', async (t) => {
  const ensign = await startEnsign(t);
  const requests: { url: string; headers: Headers }[] = [];
  const fetchImplementation = (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push({ url: request.url, headers: request.headers });
    return fetch(request);
  };
  await OpenFeature.setProviderAndWait(
    'bearer',
    new OFREPProvider({
      baseUrl: ensign.ofrepBaseUrl,
      headers: [['Authorization', `Bearer ${ensign.sdk}`]],
      fetchImplementation,
    }),
  );
  await OpenFeature.setProviderAndWait(
    'api-key',
    new OFREPProvider({ baseUrl: ensign.ofrepBaseUrl, headers: { 'X-API-Key': ensign.pub } }),
  );
  t.after(() => OpenFeature.close());
  const server: Client = OpenFeature.getClient('bearer');
  const browserKey: Client = OpenFeature.getClient('api-key');

  await t.test('boolean, string, number and object flags with their reasons, variants and metadata', async () => {
    const bool = await server.getBooleanDetails('dark-mode', true, { targetingKey: 'user-1' });
    assert.equal(bool.value, false);
    assert.equal(bool.reason, 'STATIC');
    assert.equal(bool.errorCode, undefined);
    assert.deepEqual(bool.flagMetadata, { team: 'web' });
    assert.equal(await server.getStringValue('checkout', 'fallback', { targetingKey: 'user-1' }), 'classic');
    const number = await server.getNumberDetails('limit', -1, { targetingKey: 'user-1' });
    assert.ok([10, 20].includes(number.value));
    assert.equal(number.reason, 'SPLIT');
    const object = await server.getObjectDetails('layout', { columns: 0 }, { targetingKey: 'user-1' });
    assert.equal(object.reason, 'SPLIT');
    assert.deepEqual(object.value, object.variant === 'wide' ? { columns: 3 } : { columns: 1 });
    const sent = requests.at(-1)!;
    assert.equal(sent.url, `${ensign.address}/api/ofrep/v1/evaluate/flags/layout`);
    assert.equal(sent.headers.get('authorization'), `Bearer ${ensign.sdk}`);
  });

  await t.test('targeting rules decide by context attributes', async () => {
    const beta = await server.getStringDetails('checkout', 'fallback', {
      targetingKey: 'user-2',
      plan: 'beta',
      country: 'NO',
    });
    assert.equal(beta.value, 'new');
    assert.equal(beta.reason, 'TARGETING_MATCH');
    assert.equal(
      await server.getStringValue('checkout', 'fallback', { targetingKey: 'user-2', plan: 'beta', country: 'SE' }),
      'classic',
    );
  });

  await t.test('splits are stable per subject and reach every bucket', async () => {
    const seen = new Map<number, number>();
    for (let i = 0; i < 60; i++) {
      const value = await server.getNumberValue('limit', -1, { targetingKey: `subject-${i}` });
      seen.set(value, (seen.get(value) ?? 0) + 1);
      assert.equal(
        await server.getNumberValue('limit', -1, { targetingKey: `subject-${i}` }),
        value,
        'same subject, same value',
      );
    }
    assert.deepEqual(
      [...seen.keys()].sort((a, b) => a - b),
      [10, 20],
    );
  });

  await t.test(
    'a missing flag, a missing targeting key and a wrong type give the code default with the error',
    async () => {
      const missing = await server.getBooleanDetails('no-such-flag', true, { targetingKey: 'user-1' });
      assert.equal(missing.value, true);
      assert.equal(missing.reason, 'ERROR');
      assert.equal(missing.errorCode, 'FLAG_NOT_FOUND');
      const keyless = await server.getNumberDetails('limit', -1, {});
      assert.equal(keyless.value, -1);
      assert.equal(keyless.errorCode, 'TARGETING_KEY_MISSING');
      const wrongType = await server.getStringDetails('dark-mode', 'nope', { targetingKey: 'user-1' });
      assert.equal(wrongType.value, 'nope');
      assert.equal(wrongType.errorCode, 'TYPE_MISMATCH');
    },
  );

  await t.test('a pub_ key by X-API-Key sees client-visible flags only', async () => {
    assert.equal(await browserKey.getBooleanValue('dark-mode', true, { targetingKey: 'user-1' }), false);
    const hidden = await browserKey.getBooleanDetails('ops-only', false, { targetingKey: 'user-1' });
    assert.equal(hidden.value, false);
    assert.equal(hidden.errorCode, 'FLAG_NOT_FOUND');
    assert.equal(await server.getBooleanValue('ops-only', false, { targetingKey: 'user-1' }), true);
  });

  await t.test('a change is seen without restarting anything', async () => {
    await ensign.setFlag({ key: 'dark-mode', value: true });
    const elapsed = await waitFor(
      async () => (await server.getBooleanValue('dark-mode', false, { targetingKey: 'user-1' })) === true,
      1000,
    );
    t.diagnostic(`change seen after ${elapsed} ms`);
    await ensign.setFlag({ key: 'checkout', value: 'modern' });
    await waitFor(
      async () => (await browserKey.getStringValue('checkout', 'fallback', { targetingKey: 'user-3' })) === 'modern',
      1000,
    );
  });

  await t.test('an unknown key makes evaluations fail to the code default', async () => {
    await OpenFeature.setProviderAndWait(
      'bad',
      new OFREPProvider({
        baseUrl: ensign.ofrepBaseUrl,
        headers: [['Authorization', 'Bearer sdk_notakeynotakeynotakeynotakeynotakey000000']],
      }),
    );
    const details = await OpenFeature.getClient('bad').getBooleanDetails('dark-mode', false, { targetingKey: 'u' });
    assert.equal(details.value, false);
    assert.equal(details.reason, 'ERROR');
  });
});
