// The flags screen with 5,000 flags in the environment: how soon it is interactive on loopback, how
// much JavaScript the first page loads (gzipped), and that search and paging stay on the server.
// The numbers are reported (test-output/console/numbers.json and the test's diagnostics), not asserted
// as timings: the assertions are about behaviour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createDb } from '../../src/db/create-db.js';
import { createConfigMutator, createConfigStateStore, type FlagRecord } from '../../src/modules/core/config/index.js';
import { createJournalService } from '../../src/modules/core/journal/index.js';
import { createChangeNotifier } from '../../src/db/notifications.js';
import { SCREENSHOTS, assertNoProblems, sessionToken, signUp, startConsole, visitScreen } from './console-browser.js';

const FLAGS = 5000;

/**
 * Milliseconds from the start of the navigation (the page's own clock) to the first check that finds
 * the first flag's switch on screen and enabled: the flags screen is interactive. Checked every 10 ms
 * from here with page.evaluate, which the console's Content-Security-Policy allows; waitForFunction's
 * polling compiles its predicate in the page with new Function, which that policy (no unsafe-eval)
 * refuses whenever the first check does not already succeed.
 */
async function interactiveAt(page: import('playwright-core').Page): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const at = (await page.evaluate(`(() => {
      const s = document.querySelector('button[role="switch"][aria-label^="flag-00000"]');
      return s && !s.disabled ? Math.round(performance.now()) : 0;
    })()`)) as number;
    if (at > 0) return at;
    if (Date.now() > deadline) throw new Error('the flags screen was not interactive within 30 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Writes `count` flags into one environment as one version, through the config mutator (as any write). */
async function seedFlags(databaseUrl: string, target: { appId: string; envId: string; env: string }, count: number) {
  const handle = createDb(databaseUrl);
  try {
    const notifier = createChangeNotifier(handle);
    const mutator = createConfigMutator({
      store: createConfigStateStore(handle.db, notifier),
      journal: createJournalService(handle.db),
      secret: 'seed-secret-seed-secret-seed-secret-0',
      requiredApprovals: async () => 0,
    });
    const at = new Date().toISOString();
    await handle.db.transaction().execute((trx) =>
      mutator.apply(trx, { target, source: 'bulk', authority: { type: 'system' } }, (current) => {
        const flags: Record<string, FlagRecord> = { ...current.state.flags };
        for (let i = 0; i < count; i++) {
          const key = `flag-${String(i).padStart(5, '0')}`;
          flags[key] = {
            key,
            type: 'bool',
            value: i % 2 === 0,
            enabled: true,
            offValue: false,
            clientEnabled: false,
            description: i % 50 === 0 ? `Checkout experiment ${i}` : '',
            rollout: null,
            variants: null,
            rules: [],
            overrides: {},
            dependencies: [],
            metadata: {},
            createdAt: at,
            updatedAt: at,
          } as FlagRecord;
        }
        return {
          state: { ...current.state, flags },
          operation: 'bulk.apply',
          resourceType: 'environment',
          resourceId: target.envId,
          result: null,
        };
      }),
    );
    await notifier.close();
  } finally {
    await handle.close();
  }
}

test('5,000 flags: the flags screen is interactive at once, searches and pages on the server; the initial JavaScript is measured', async (t) => {
  const c = await startConsole(t, 'console-scale');
  const { page } = await c.newPage();
  await signUp(page, c.base, 'scale@example.com');
  const token = (await sessionToken(page))!;
  const res = await fetch(`${c.server.address}/api/v1/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ name: 'Big', slug: 'big' }),
  });
  assert.equal(res.status, 201);
  const created = (await res.json()) as any;
  const appId = created.app.id as string;
  const dev = created.environments.find((e: any) => e.slug === 'dev');
  await seedFlags(`sqlite://${join(c.server.dir, 'data', 'ensign.db')}`, { appId, envId: dev.id, env: 'dev' }, FLAGS);

  // A cold load of the flags screen (a new tab of the same session): scripts counted, time to the first usable switch.
  const scripts = new Map<string, Buffer>();
  const collect = async (response: import('playwright-core').Response) => {
    if (response.request().resourceType() === 'script') scripts.set(response.url(), await response.body());
  };
  page.on('response', collect);
  await page.goto('about:blank');
  await page.goto(`${c.base}/apps/${appId}/dev/flags`);
  const interactiveMs = await interactiveAt(page);
  page.off('response', collect);
  // In the page's timeline: when the first scripts had arrived, and when the flag page's answer had.
  const timeline = JSON.parse(
    (await page.evaluate(
      `JSON.stringify(performance.getEntriesByType('resource').map((r) => [r.name, Math.round(r.responseEnd)]))`,
    )) as string,
  ) as [string, number][];
  const scriptsAtMs = Math.max(...timeline.filter(([name]) => name.endsWith('.js')).map(([, end]) => end));
  const flagsAnswerAtMs = timeline.find(([name]) => name.includes('/api/v1/flags?'))?.[1] ?? null;
  const apiRows = await page.getByRole('row').count();
  assert.equal(apiRows, 51, 'one page of 50 flags (and the header row), not 5,000');
  await page.getByText(`1–50 of ${FLAGS.toLocaleString('en')} flags`).waitFor();
  const paint = (await page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")) as string;
  const domContentLoadedMs = Math.round(JSON.parse(paint).domContentLoadedEventEnd);
  await visitScreen(page, 'scale-01-flags-5000', /Flags in Development/);

  // Warm: the hashed assets are cached immutably, so a later visit fetches only the API answers.
  await page.goto('about:blank');
  await page.goto(`${c.base}/apps/${appId}/dev/flags`);
  const warmInteractiveMs = await interactiveAt(page);
  // The API alone: one page of the list, as the screen asks for it.
  const apiStarted = Date.now();
  const pageRes = await fetch(`${c.server.address}/api/v1/flags?appId=${appId}&env=dev&limit=50`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(pageRes.status, 200);
  assert.equal(((await pageRes.json()) as any).flags.length, 50);
  const flagsApiMs = Date.now() - apiStarted;

  // Search on the server: a key, then a word of the descriptions.
  let searchStarted = Date.now();
  await page.getByLabel('Search flags').fill('flag-04999');
  await page.getByText('1–1 of 1 flag').waitFor();
  const searchMs = Date.now() - searchStarted;
  await page.getByLabel('Search flags').fill('checkout experiment');
  await page.getByText('1–50 of 100 flags').waitFor();
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('51–100 of 100 flags').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('1–50 of 100 flags').waitFor();

  // A toggle among 5,000 flags (Development: no confirmation).
  searchStarted = Date.now();
  await page.getByRole('switch', { name: /flag-00000 is on/ }).click();
  await page.getByRole('switch', { name: /flag-00000 is off/ }).waitFor();
  const toggleMs = Date.now() - searchStarted;

  const initialJs = [...scripts.values()];
  const numbers = {
    flags: FLAGS,
    flagsScreenInteractiveMs: interactiveMs,
    scriptsArrivedAtMs: scriptsAtMs,
    flagsAnswerArrivedAtMs: flagsAnswerAtMs,
    flagsScreenInteractiveWarmMs: warmInteractiveMs,
    flagsApiPageMs: flagsApiMs,
    domContentLoadedMs,
    searchRoundTripMs: searchMs,
    toggleRoundTripMs: toggleMs,
    initialJsFiles: initialJs.length,
    initialJsBytes: initialJs.reduce((n, b) => n + b.length, 0),
    initialJsGzipBytes: initialJs.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0),
  };
  mkdirSync(SCREENSHOTS, { recursive: true });
  writeFileSync(join(SCREENSHOTS, 'numbers.json'), JSON.stringify(numbers, null, 2) + '\n');
  t.diagnostic(`console numbers: ${JSON.stringify(numbers)}`);
  assert.ok(numbers.initialJsFiles > 0, 'the scripts of the first page were seen');
  assertNoProblems(page);
});
