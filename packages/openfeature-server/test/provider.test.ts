// The server provider under the real @openfeature/server-sdk, against a scripted server: the
// conformance vectors in OpenFeature's terms, READY emitted once (from initialize), STALE then
// ERROR after the grace period, READY again, CONFIGURATION_CHANGED with the changed keys, FATAL on
// a refused key, tracking as outcome events, and an idempotent shutdown.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenFeature, ProviderEvents, ProviderStatus, type EvaluationContext } from '@openfeature/server-sdk';
import { flattenMetadata, toOpenFeature } from '@ensign/engine';
import { expectedResult } from '@ensign/engine/conformance';
import { EnsignServerProvider } from '@ensign/openfeature-server';
import { document, FakeServer, flag, until, vectors, vectorsDocument } from '../../sdk/test/fixtures.js';

const DEFAULTS = { bool: false, string: 'default', number: -1, json: { fallback: true } } as const;

describe('@ensign/openfeature-server', () => {
  test("resolves every conformance case as the engine's OpenFeature mapping says", async (t) => {
    const server = new FakeServer(vectorsDocument());
    const provider = new EnsignServerProvider({
      url: server.url,
      key: 'sdk_test',
      fetch: server.fetch,
      stream: false,
      events: false,
    });
    await OpenFeature.setProviderAndWait('conformance', provider);
    t.after(() => OpenFeature.clearProviders());
    const client = OpenFeature.getClient('conformance');
    const flags = new Map(vectors.suites.flatMap((s) => s.flags.map((f) => [f.key, f] as const)));
    let cases = 0;
    for (const suite of vectors.suites) {
      for (const c of suite.cases) {
        const type = c.expectedType ?? flags.get(c.flag)?.type ?? 'bool';
        const fallback = DEFAULTS[type];
        const context = c.context as EvaluationContext | undefined;
        const details =
          type === 'bool'
            ? await client.getBooleanDetails(c.flag, fallback as boolean, context)
            : type === 'string'
              ? await client.getStringDetails(c.flag, fallback as string, context)
              : type === 'number'
                ? await client.getNumberDetails(c.flag, fallback as number, context)
                : await client.getObjectDetails(c.flag, fallback as never, context);
        const expected = toOpenFeature(
          expectedResult(c.flag, c.expect),
          flattenMetadata(flags.get(c.flag)?.metadata ?? {}),
        );
        const label = `${suite.name} / ${c.name}`;
        assert.equal(details.reason, expected.reason, label);
        assert.equal(details.errorCode, expected.errorCode, label);
        assert.deepEqual(details.value, expected.reason === 'ERROR' ? fallback : expected.value, label);
        assert.equal(details.variant, expected.variant, label);
        assert.deepEqual(details.flagMetadata, expected.flagMetadata ?? {}, label);
        cases++;
      }
    }
    assert.ok(cases > 130);
  });

  test('status and events: READY once, STALE, ERROR after the grace period, READY again, CONFIGURATION_CHANGED', async (t) => {
    const server = new FakeServer(document({ flags: { a: flag('bool', false) } }));
    server.streamAvailable = false;
    const provider = new EnsignServerProvider({
      url: server.url,
      key: 'sdk_test',
      fetch: server.fetch,
      pollIntervalMs: 1000,
      events: false,
      errorGracePeriodMs: 50,
    });
    const seen: string[] = [];
    const changed: string[][] = [];
    for (const event of [
      ProviderEvents.Ready,
      ProviderEvents.Stale,
      ProviderEvents.Error,
      ProviderEvents.ConfigurationChanged,
    ]) {
      OpenFeature.addHandler(event, (details) => {
        if (details?.domain !== 'status') return;
        seen.push(event);
        if (event === ProviderEvents.ConfigurationChanged)
          changed.push((details?.flagsChanged as string[] | undefined) ?? []);
      });
    }
    await OpenFeature.setProviderAndWait('status', provider);
    t.after(() => OpenFeature.clearProviders());
    const client = OpenFeature.getClient('status');
    assert.deepEqual(seen, [ProviderEvents.Ready], 'READY exactly once, derived from initialize()');
    // The server keeps failing until ERROR is seen: with Retry-After 0 the client asks again at once,
    // and one success inside the grace period would rightly cancel the ERROR.
    for (let i = 0; i < 1000; i++)
      server.documentAnswers.push({
        status: 503,
        body: { error: { code: 'service_unavailable' } },
        headers: { 'retry-after': '0' },
      });
    await until(() => seen.includes(ProviderEvents.Error), 'ERROR after the grace period');
    server.documentAnswers.length = 0;
    assert.deepEqual(seen.slice(1, 3), [ProviderEvents.Stale, ProviderEvents.Error]);
    assert.equal(await client.getBooleanValue('a', true), false, 'the last document is still served');
    server.current = document({ flags: { a: flag('bool', true), b: flag('string', 'x') } }, 2);
    await until(() => seen.includes(ProviderEvents.ConfigurationChanged), 'CONFIGURATION_CHANGED');
    assert.deepEqual(changed, [['a', 'b']]);
    assert.ok(seen.filter((e) => e === ProviderEvents.Ready).length === 2, 'READY again once fresh');
    assert.equal(client.providerStatus, ProviderStatus.READY);
    assert.equal(await client.getBooleanValue('a', false), true);
  });

  test('a refused key: initialize fails as FATAL', async (t) => {
    const server = new FakeServer(document({}));
    server.documentAnswers.push({
      status: 401,
      body: { error: { code: 'invalid_credential', message: 'The credential is not valid.' } },
    });
    const provider = new EnsignServerProvider({
      url: server.url,
      key: 'sdk_revoked',
      fetch: server.fetch,
      events: false,
    });
    await assert.rejects(OpenFeature.setProviderAndWait('fatal', provider), /refused the key/);
    t.after(() => OpenFeature.clearProviders());
    assert.equal(OpenFeature.getClient('fatal').providerStatus, ProviderStatus.FATAL);
    const details = await OpenFeature.getClient('fatal').getBooleanDetails('a', true);
    assert.deepEqual([details.value, details.errorCode], [true, 'PROVIDER_FATAL']);
  });

  test('tracking sends outcome events; exposures of assigned subjects are sent; shutdown is idempotent and flushes', async () => {
    const server = new FakeServer(vectorsDocument());
    const provider = new EnsignServerProvider({ url: server.url, key: 'sdk_test', fetch: server.fetch, stream: false });
    await OpenFeature.setProviderAndWait('tracking', provider);
    const client = OpenFeature.getClient('tracking');
    assert.equal(await client.getStringValue('cv-exp-flag', 'x', { targetingKey: 'user-2', country: 'NO' }), 'classic');
    client.track('revenue', { targetingKey: 'user-2' }, { value: 30 });
    await provider.onClose();
    await provider.onClose();
    await OpenFeature.clearProviders();
    assert.deepEqual(
      server.events.map((e) => [e.kind, e.flagKey ?? e.metricKey, e.variant ?? e.metricValue]),
      [
        ['exposure', 'cv-exp-flag', 'control'],
        ['outcome', 'revenue', 30],
      ],
    );
  });
});
