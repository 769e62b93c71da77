// An experiment's results page in Chromium, from a seeded aggregate: exposures and conversions sent
// through the events route, one aggregation run, then the page with each metric's interval drawn
// against zero, the health checks, the decision and freshness; and the insights of the flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  assertNoProblems,
  checkAccessibility,
  sessionToken,
  signUp,
  startConsole,
  visitScreen,
} from './console-browser.js';

test('the results page renders the intervals of a seeded aggregate; insights show suppressed cells as suppressed', async (t) => {
  const c = await startConsole(t, 'console-experiment', { jobs: { concurrency: 1, pollIntervalMs: 100 } });
  const api = async (
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${c.server.address}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text || 'null');
  };
  const { page } = await c.newPage();
  await signUp(page, c.base, 'ana@example.com');
  const token = (await sessionToken(page))!;
  const created = await api(
    token,
    'POST',
    '/api/v1/apps',
    { name: 'Store', slug: 'store' },
    { 'idempotency-key': randomUUID() },
  );
  const appId = created.app.id as string;
  const sdk = created.keys.find((k: any) => k.env === 'prod').token as string;
  const env = { appId, env: 'prod' };
  await api(token, 'PATCH', '/api/v1/flags', { ...env, key: 'checkout', type: 'string', value: 'classic' });
  const metric = (
    await api(token, 'POST', '/api/v1/metrics', {
      ...env,
      key: 'conversion',
      name: 'Checkout conversion',
      kind: 'proportion',
      eventMetricKey: 'checkout.completed',
      direction: 'increase',
    })
  ).metric;
  const experiment = (
    await api(token, 'POST', '/api/v1/experiments', {
      ...env,
      key: 'one-page',
      name: 'One-page checkout',
      hypothesis: 'One page converts better.',
      flagKey: 'checkout',
      variants: [
        { key: 'control', value: 'classic', weight: 50 },
        { key: 'treatment', value: 'one-page', weight: 50 },
      ],
      allocation: 100,
      primaryMetric: { metricId: metric.id, revision: 1 },
      analysis: { minimumUnitsPerVariant: 50 },
    })
  ).experiment;
  const started = (
    await api(token, 'POST', `/api/v1/experiments/${experiment.id}/transition`, {
      ...env,
      revision: experiment.revision,
      to: 'running',
    })
  ).experiment;
  const iteration = started.currentIteration;

  // 200 subjects a variant; 40 % of control and 60 % of treatment convert.
  const at = Date.now() + 1000;
  const events: any[] = [];
  for (const [variant, rate] of [
    ['control', 0.4],
    ['treatment', 0.6],
  ] as const) {
    for (let i = 0; i < 200; i++) {
      const subject = `${variant}-${i}`;
      events.push({
        id: `x-${subject}`,
        kind: 'exposure',
        timestamp: new Date(at).toISOString(),
        targetingKey: subject,
        flagKey: 'checkout',
        variant,
        experimentId: experiment.id,
        iterationId: iteration.id,
      });
      if (i < 200 * rate)
        events.push({
          id: `o-${subject}`,
          kind: 'outcome',
          timestamp: new Date(at + 1000).toISOString(),
          targetingKey: subject,
          metricKey: 'checkout.completed',
        });
    }
  }
  for (let i = 0; i < events.length; i += 100) {
    const sent = await api(sdk, 'POST', '/api/v1/events/batch', { schemaVersion: 1, events: events.slice(i, i + 100) });
    assert.equal(sent.accepted, Math.min(100, events.length - i));
  }
  // A few exposures of a rare variant value: a cell under the minimum of 20 subjects (suppressed).
  await api(sdk, 'POST', '/api/v1/events/batch', {
    schemaVersion: 1,
    events: Array.from({ length: 3 }, (_, i) => ({
      id: `rare-${i}`,
      kind: 'exposure',
      timestamp: new Date(at).toISOString(),
      targetingKey: `rare-${i}`,
      flagKey: 'checkout',
      variant: 'legacy',
    })),
  });

  const { run } = await api(token, 'POST', `/api/v1/experiments/${experiment.id}/results/recompute`, {
    ...env,
    iterationId: iteration.id,
    iterationRevision: iteration.revision,
    analysisEngineVersion: 'descriptive-v1',
    idempotencyKey: randomUUID(),
    confirm: true,
  });
  for (let i = 0; ; i++) {
    const state = (
      await api(token, 'GET', `/api/v1/experiments/${experiment.id}/results/runs/${run.id}?appId=${appId}&env=prod`)
    ).run.state;
    if (state === 'succeeded') break;
    assert.ok(state !== 'failed' && i < 300, `the aggregation run ended ${state}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  await page.goto(`${c.base}/apps/${appId}/prod/experiments`);
  await page.getByRole('link', { name: 'One-page checkout' }).click();
  await page.getByRole('heading', { level: 1, name: /One-page checkout/ }).waitFor();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  await visitScreen(page, 'experiment-01-detail', /One-page checkout/);
  await page.getByRole('link', { name: 'Results' }).click();
  const plot = page.getByRole('img', { name: /Checkout conversion, relative effect, fixed horizon/ });
  await plot.waitFor();
  const label = (await plot.getAttribute('aria-label'))!;
  // (0.6 - 0.4) / 0.4 = +50 %; with 200 units a variant the interval lies above zero.
  assert.match(label, /treatment: 50 %, interval \d+(\.\d)? % to \d+(\.\d)? %, above zero/);
  assert.equal((await plot.locator('line').count()) >= 4, true, 'the zero line and the interval are drawn');
  await page.getByRole('row', { name: /^treatment 200/ }).waitFor();
  await page.getByRole('row', { name: /^control 200/ }).waitFor();
  await page.getByText('Sample ratio (SRM)').waitFor();
  await page.getByText(/Decision: evidence qualified/).waitFor();
  await page.getByText(/Computed .* newest event/).waitFor();
  await visitScreen(page, 'experiment-02-results', /Results: One-page checkout/);

  // Production protected: a stop (pause) is direct with a reason, resuming is proposed.
  await api(token, 'PATCH', '/api/v1/envs', { ...env, requiredApprovals: 1 });
  await page.goto(`${c.base}/apps/${appId}/prod/experiments/${experiment.id}`);
  await page.getByText('Protected: moves that widen exposure are proposed').waitFor();
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  const pause = page.getByRole('dialog', { name: 'Pause' });
  assert.equal(
    await pause.getByLabel('Reason').getAttribute('required'),
    '',
    'a stop in a protected environment needs a reason',
  );
  await pause.getByLabel('Reason').fill('error rate up');
  await checkAccessibility(page, 'experiment-stop');
  await pause.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('heading', { level: 1, name: /One-page checkout paused/ }).waitFor();
  await page.getByRole('button', { name: 'Resume (propose)' }).click();
  const resume = page.getByRole('dialog', { name: 'Resume: propose' });
  await resume.getByRole('button', { name: 'Propose' }).click();
  await page.getByRole('heading', { level: 1, name: /Proposal: experiment\.transition .* → running/ }).waitFor();
  await visitScreen(page, 'experiment-03-resume-proposed', /Proposal/);
  const journal = await api(token, 'GET', `/api/v1/changes?appId=${appId}&operation=experiment.pause`);
  assert.equal(journal.changes[0].source, 'emergency');

  // Insights of the flag: exposures per variant, the rare variant suppressed (not zero).
  await page.goto(`${c.base}/apps/${appId}/prod/insights?flag=checkout&days=1&measure=exposures`);
  const table = page.getByRole('table', { name: /exposures of checkout per variant/ });
  await table.waitFor();
  assert.match((await table.textContent())!, /suppressed/);
  assert.match((await table.textContent())!, /200/);
  await page
    .getByRole('img', { name: /exposures of checkout per variant: 3 variants .* [1-9]\d* suppressed cell/ })
    .waitFor();
  await visitScreen(page, 'insights-01-suppressed', /Insights in Production/);
  assertNoProblems(page);
});
