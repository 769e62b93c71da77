// The web provider under the real @openfeature/web-sdk, against a scripted server: synchronous
// evaluation of the client projection, a context change that makes no request, the stored copy
// served (STALE) while the server is down, and CONFIGURATION_CHANGED after a change.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientProviderEvents, OpenFeature } from '@openfeature/web-sdk';
import { localStorageStore, type TextStorage } from '@ensign/sdk';
import { EnsignWebProvider } from '@ensign/openfeature-web';
import { document, FakeServer, flag, until } from '../../sdk/test/fixtures.js';

const projection = (version: number, banner = 'old') => ({
  ...document(
    {
      flags: {
        banner: flag('string', banner, {
          rules: [
            {
              id: 'beta',
              conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }],
              serve: { value: 'new' },
            },
          ],
        }),
        split: flag('number', 1, { rollout: { percentage: 50, value: 2 } }),
      },
      experiments: undefined,
    },
    version,
  ),
  audience: 'client' as const,
});

function memoryStorage(): TextStorage {
  const items = new Map<string, string>();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
}

describe('@ensign/openfeature-web', () => {
  test('evaluates locally: a context change makes no request; CONFIGURATION_CHANGED after a change', async (t) => {
    const server = new FakeServer(projection(1));
    const provider = new EnsignWebProvider({
      url: server.url,
      key: 'pub_page',
      fetch: server.fetch,
      store: null,
      events: false,
    });
    await OpenFeature.setContext('web', { targetingKey: 'visitor-1', plan: 'free' });
    await OpenFeature.setProviderAndWait('web', provider);
    t.after(() => OpenFeature.clearProviders());
    const client = OpenFeature.getClient('web');
    assert.equal(client.getStringValue('banner', 'x'), 'old');
    await until(() => server.openStreams === 1, 'the stream');
    const requests = server.exchanges.length;
    await OpenFeature.setContext('web', { targetingKey: 'visitor-1', plan: 'beta' });
    assert.deepEqual(
      [client.getStringDetails('banner', 'x').value, client.getStringDetails('banner', 'x').reason],
      ['new', 'TARGETING_MATCH'],
    );
    await OpenFeature.setContext('web', {});
    assert.equal(client.getNumberDetails('split', -1).errorCode, 'TARGETING_KEY_MISSING');
    assert.equal(server.exchanges.length, requests, 'no request for a new context');

    const changed: string[][] = [];
    client.addHandler(ClientProviderEvents.ConfigurationChanged, (d) => changed.push(d?.flagsChanged ?? []));
    server.publish(projection(2, 'newer'));
    await until(() => changed.length === 1, 'CONFIGURATION_CHANGED');
    assert.deepEqual(changed, [['banner']]);
    assert.equal(client.getStringValue('banner', 'x'), 'newer');
  });

  test('the stored copy is served at once while the server is down, as STALE', async (t) => {
    const storage = memoryStorage();
    const server = new FakeServer(projection(3, 'kept'));
    const first = new EnsignWebProvider({
      url: server.url,
      key: 'pub_page',
      fetch: server.fetch,
      store: localStorageStore(storage),
      stream: false,
      events: false,
    });
    await first.initialize();
    await first.onClose();

    const down = new EnsignWebProvider({
      url: server.url,
      key: 'pub_page',
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      },
      store: localStorageStore(storage),
      stream: false,
      events: false,
    });
    const stale: string[] = [];
    OpenFeature.addHandler(ClientProviderEvents.Stale, (d) => d?.domain === 'offline' && stale.push('stale'));
    await OpenFeature.setProviderAndWait('offline', down);
    t.after(() => OpenFeature.clearProviders());
    assert.equal(OpenFeature.getClient('offline').getStringValue('banner', 'x'), 'kept');
    await until(() => stale.length === 1, 'STALE');
    assert.equal(down.client.status, 'stale');
  });
});
