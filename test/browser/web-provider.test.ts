// The web provider in Debian's Chromium against a started server: a page served by a test server
// (another origin than Ensign's, so every request is a real cross-origin one with a pub_ key) loads
// the OpenFeature web SDK with @ensign/openfeature-web, evaluates synchronously, sees a server write
// arrive through the change stream, changes its context without a request, reports STALE when the
// server stops, and after a reload is served from its localStorage copy while the server is down.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { build } from 'esbuild';
import { startEnsign } from '../e2e/openfeature.fixtures.js';
import { serveStaticSite } from '../helpers/static-site.js';
import { launchChromium } from './chromium.js';
import { waitFor } from '../helpers/polling.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The page's script: the OpenFeature web SDK, the provider, the SDK and the engine core in one file. */
async function pageScript(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./web-provider-page.ts', import.meta.url))],
    tsconfig: `${root}tsconfig.json`,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

interface Evaluation {
  darkMode: boolean;
  checkout: { value: string; reason: string; variant?: string };
  hidden: { value: boolean; errorCode?: string };
  status: string;
}

test('the web provider in Chromium: local evaluation, a context change without a request, a change through the stream, STALE when the server stops', async (t) => {
  const [ensign, script] = await Promise.all([startEnsign(t), pageScript()]);
  const site = {
    url: await serveStaticSite(t, {
      '/': {
        type: 'text/html',
        body: '<!doctype html><html lang="en"><title>Ensign web provider</title><script src="/app.js"></script></html>',
      },
      '/app.js': { type: 'text/javascript', body: script },
    }),
  };
  const browser = await launchChromium();
  t.after(() => browser.close());
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  const toEnsign: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(ensign.address))
      toEnsign.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  const call = <T>(expression: string) => page.evaluate(expression) as Promise<T>;

  await page.goto(site.url);
  assert.notEqual(new URL(site.url).origin, ensign.address, 'the page and Ensign are different origins');
  const started = await call<{ source: string; status: string }>(
    `ensignPage.start(${JSON.stringify(ensign.address)}, ${JSON.stringify(ensign.pub)}, { targetingKey: 'visitor-1', plan: 'beta', country: 'NO' })`,
  );
  assert.deepEqual(started, { source: 'network', status: 'READY' });
  assert.ok(
    toEnsign.includes('GET /api/v1/advanced-config'),
    `the document was fetched cross-origin: ${toEnsign.join(', ')}`,
  );

  await t.test('synchronous evaluation of the pub_ projection', async () => {
    const now = await call<Evaluation>('ensignPage.evaluate()');
    assert.equal(now.darkMode, false);
    assert.deepEqual(now.checkout, { value: 'new', reason: 'TARGETING_MATCH', variant: undefined });
    assert.deepEqual(
      now.hidden,
      { value: false, errorCode: 'FLAG_NOT_FOUND' },
      'a flag hidden from clients is not delivered',
    );
  });

  await t.test('a server write arrives through the change stream as CONFIGURATION_CHANGED', async () => {
    await waitFor(() => toEnsign.some((r) => r.startsWith('GET /api/ofrep/v1/events')), 10_000);
    await ensign.setFlag({ key: 'dark-mode', value: true });
    await waitFor(
      async () =>
        (await call<{ type: string }[]>('ensignPage.events()')).some(
          (e) => e.type === 'PROVIDER_CONFIGURATION_CHANGED',
        ),
      10_000,
    );
    const changed = (await call<{ type: string; flagsChanged?: string[] }[]>('ensignPage.events()')).find(
      (e) => e.type === 'PROVIDER_CONFIGURATION_CHANGED',
    );
    assert.deepEqual(changed?.flagsChanged, ['dark-mode']);
    assert.equal((await call<Evaluation>('ensignPage.evaluate()')).darkMode, true);
  });

  // After the stream test, not before: a stream opened within 5 s of a change (the seeding) is told
  // to fetch again (event-streams.ts), and that fetch could land in this test's window. Once the
  // stream's write has arrived every fetch its messages asked for is done, and polling is off.
  await t.test('a context change needs no request', async () => {
    const before = toEnsign.length;
    await call(`ensignPage.setContext({ targetingKey: 'visitor-2', plan: 'free', country: 'SE' })`);
    const now = await call<Evaluation>('ensignPage.evaluate()');
    assert.equal(now.checkout.value, 'classic');
    assert.equal(now.checkout.reason, 'DEFAULT');
    assert.deepEqual(toEnsign.slice(before), []);
  });

  await t.test('STALE when the server stops; the last document is still served', async () => {
    await ensign.stop();
    await waitFor(
      async () => (await call<{ type: string }[]>('ensignPage.events()')).some((e) => e.type === 'PROVIDER_STALE'),
      15_000,
    );
    const now = await call<Evaluation>('ensignPage.evaluate()');
    assert.equal(now.status, 'STALE');
    assert.equal(now.darkMode, true);
  });

  await t.test('after a reload with the server down, the localStorage copy is served (STALE)', async () => {
    await page.reload();
    const again = await call<{ source: string }>(
      `ensignPage.start(${JSON.stringify(ensign.address)}, ${JSON.stringify(ensign.pub)}, { targetingKey: 'visitor-1', plan: 'beta', country: 'NO' })`,
    );
    assert.equal(again.source, 'persisted');
    assert.equal((await call<Evaluation>('ensignPage.evaluate()')).darkMode, true);
    await waitFor(async () => (await call<Evaluation>('ensignPage.evaluate()')).status === 'STALE', 15_000);
  });

  assert.deepEqual(problems, [], 'no page errors');
});
