// The flagd testbed's evaluation, targeting, metadata and error scenarios, translated to Ensign
// flags (packages/sdk/test/flagd-scenarios.ts says which and why not the others), through the
// real @openfeature/web-sdk and this provider: each example's context set, then evaluated in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenFeature, type EvaluationContext } from '@openfeature/web-sdk';
import { EnsignWebProvider } from '@ensign/openfeature-web';
import { FakeServer } from '../../sdk/test/fixtures.js';
import { FLAGD_SCENARIOS, flagdDocument, NOT_TRANSLATED } from '../../sdk/test/flagd-scenarios.js';

test('the flagd testbed scenarios, translated, through the OpenFeature web SDK', async (t) => {
  const server = new FakeServer({ ...flagdDocument(), audience: 'client' });
  await OpenFeature.setProviderAndWait(
    'flagd-scenarios',
    new EnsignWebProvider({
      url: server.url,
      key: 'pub_test',
      fetch: server.fetch,
      stream: false,
      store: null,
      events: false,
    }),
  );
  t.after(() => OpenFeature.clearProviders());
  const client = OpenFeature.getClient('flagd-scenarios');
  for (const s of FLAGD_SCENARIOS) {
    await OpenFeature.setContext('flagd-scenarios', (s.context ?? {}) as EvaluationContext);
    const details =
      s.type === 'Boolean'
        ? client.getBooleanDetails(s.flag, s.defaultValue as boolean)
        : s.type === 'String'
          ? client.getStringDetails(s.flag, s.defaultValue as string)
          : client.getNumberDetails(s.flag, s.defaultValue as number);
    const label = `${s.feature} / ${s.scenario} / ${s.flag} ${JSON.stringify(s.context ?? {})}`;
    assert.deepEqual(details.value, s.expect.value, label);
    if (s.expect.reason !== undefined) assert.equal(details.reason, s.expect.reason, label);
    assert.equal(details.errorCode, s.expect.errorCode, label);
    if (s.expect.metadata !== undefined) assert.deepEqual(details.flagMetadata, s.expect.metadata, label);
  }
  t.diagnostic(
    `${FLAGD_SCENARIOS.length} examples run; ${NOT_TRANSLATED.length} scenarios Ensign's model cannot state (listed with why)`,
  );
});
