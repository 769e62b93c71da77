// The console in Chromium, as a new user walks through it: sign up → create an app (keys shown once)
// → create a flag → an invalid rule shows its error at the field → turn the flag off in production
// with confirmation → diff two versions and roll back → the evaluate playground; then every other
// screen, each checked by axe and photographed, a keyboard-only toggle, a narrow window, sign-out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  assertNoProblems,
  checkAccessibility,
  clipboardText,
  screenshot,
  sessionToken,
  signUp,
  startConsole,
  visitScreen,
} from './console-browser.js';

/** Presses Tab until the element the locator finds has the focus (a bounded walk, like a person's). */
async function tabTo(page: Page, selector: string, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  assert.fail(`Tab never reached ${selector}`);
}

test('a new user: sign up, create an app, a flag, an inline rule error, a production toggle, diff and rollback, the playground, every screen', async (t) => {
  const c = await startConsole(t, 'console-flows');
  const { page, context } = await c.newPage();

  // Sign up (and the sign-in page itself).
  await page.goto(`${c.base}/apps`);
  await page.getByRole('heading', { level: 1, name: 'Sign in to Ensign' }).waitFor();
  await checkAccessibility(page, 'sign-in');
  await screenshot(page, '01-sign-in');
  await signUp(page, c.base, 'ada@example.com');
  await page.getByText('No apps yet').waitFor();
  await visitScreen(page, '02-apps-empty', 'Apps');

  // Create an app: its keys are shown once, each with a copy button.
  await page.getByRole('button', { name: 'Create app' }).click();
  await page.getByLabel('Name').fill('Web Shop');
  assert.equal(await page.getByLabel('Slug').inputValue(), 'web-shop', 'the slug follows the name');
  await checkAccessibility(page, 'create-app-dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Create app' }).click();
  await page.getByRole('heading', { name: 'Web Shop is ready' }).waitFor();
  const prodKey = (await page
    .getByRole('row', { name: /Server \(sdk\) prod/ })
    .locator('code')
    .textContent())!;
  assert.match(prodKey, /^sdk_/);
  await page.getByRole('button', { name: 'Copy sdk key of prod' }).click();
  assert.equal(await clipboardText(page), prodKey);
  await checkAccessibility(page, 'app-keys-dialog');
  await screenshot(page, '03-app-created-keys');
  await page.getByRole('button', { name: /open the app/ }).click();
  await page.getByRole('heading', { level: 1, name: /Flags in Development/ }).waitFor();
  const appId = new URL(page.url()).pathname.split('/')[3]!;

  // Environments: production marked, protection shown.
  await page.getByRole('link', { name: 'Environments' }).click();
  await page.getByRole('heading', { level: 2, name: 'Environments' }).waitFor();
  await page.getByRole('row', { name: /Production prod Production/ }).waitFor();
  await visitScreen(page, '04-environments', 'Web Shop');

  // Production's flags: empty at first.
  await page.goto(`${c.base}/apps/${appId}/prod/flags`);
  await page.getByText('No flags in this environment yet').waitFor();
  await visitScreen(page, '05-flags-empty', /Flags in Production/);

  // Create a flag with an invalid rule: the server's issue is shown at the Rules field.
  await page.getByRole('link', { name: 'New flag' }).click();
  await page.getByRole('heading', { level: 1, name: /New flag/ }).waitFor();
  await page.getByLabel('Key', { exact: true }).fill('new-checkout');
  await page.getByLabel('Description').fill('One-page checkout');
  await page.getByLabel('Rules (JSON)').fill(
    JSON.stringify([
      {
        id: 'beta',
        conditions: [{ attribute: 'plan', operator: 'resembles', values: ['beta'] }],
        serve: { value: true },
      },
    ]),
  );
  await page.getByRole('button', { name: 'Create flag' }).click();
  const rulesIssue = page.locator('#field-rules-issues');
  await rulesIssue.waitFor();
  assert.match((await rulesIssue.textContent())!, /\[0\]\.conditions\[0\]\.operator/);
  assert.equal(await page.getByLabel('Rules (JSON)').getAttribute('aria-invalid'), 'true');
  await visitScreen(page, '06-flag-editor-inline-error', /New flag/);
  await page
    .getByLabel('Rules (JSON)')
    .fill(
      JSON.stringify(
        [{ id: 'beta', conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }], serve: { value: true } }],
        null,
        2,
      ),
    );
  await page.getByRole('button', { name: 'Create flag' }).click();
  await page.getByRole('heading', { level: 1, name: /new-checkout in Production/ }).waitFor();
  await page.getByText(/environment version 1/).waitFor();
  await visitScreen(page, '07-flag-editor', /new-checkout/);

  // Editing shows the impact before saving.
  await page.getByLabel('Description').fill('One-page checkout, for beta users first');
  await page.getByRole('button', { name: 'Review and save' }).click();
  const review = page.getByRole('dialog');
  await review.getByRole('heading', { name: 'Affected flags' }).waitFor();
  await review.getByText('/description').waitFor();
  await checkAccessibility(page, 'impact-preview');
  await screenshot(page, '08-impact-preview');
  await review.getByRole('button', { name: 'Save' }).click();
  await page.getByText(/environment version 2/).waitFor();

  // Someone else changes the environment meanwhile: saving is refused, explained, and reloads.
  await page.getByLabel('Description').fill('My edit');
  const token = (await sessionToken(page))!;
  const behind = await fetch(`${c.server.address}/api/v1/flags`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ appId, env: 'prod', key: 'new-checkout', description: 'Changed elsewhere' }),
  });
  assert.equal(behind.status, 200);
  await page.getByRole('button', { name: 'Review and save' }).click();
  await review.getByRole('heading', { name: 'Affected flags' }).waitFor();
  await review.getByRole('button', { name: 'Save' }).click();
  const conflict = review.getByRole('alert').filter({ hasText: 'Someone changed the environment meanwhile' });
  await conflict.waitFor();
  assert.match((await conflict.textContent())!, /409 version_conflict/);
  await checkAccessibility(page, 'conflict');
  await screenshot(page, '08b-conflict');
  await conflict.getByRole('button', { name: 'Reload the flag' }).click();
  await page.getByText(/environment version 3/).waitFor();
  assert.equal(
    await page.getByLabel('Description').inputValue(),
    'Changed elsewhere',
    'the form shows the current flag',
  );

  // Turn it off in production: a confirmation first; Cancel changes nothing.
  await page.goto(`${c.base}/apps/${appId}/prod/flags`);
  const toggle = page.getByRole('switch', { name: /new-checkout is on/ });
  await toggle.click();
  const confirm = page.getByRole('alertdialog');
  await confirm.getByRole('heading', { name: 'Turn new-checkout off in Production?' }).waitFor();
  await checkAccessibility(page, 'toggle-confirmation');
  await screenshot(page, '09-toggle-confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.getByRole('switch', { name: /new-checkout/ }).getAttribute('aria-checked'), 'true');
  await page.getByRole('switch', { name: /new-checkout is on/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Turn off in production' }).click();
  await page.getByRole('switch', { name: /new-checkout is off/ }).waitFor();
  await page
    .getByText(/version 4/)
    .first()
    .waitFor();
  await visitScreen(page, '10-flags', /Flags in Production/);

  // Versions: diff 3 → 4 shows the switch; roll back to 3.
  await page.getByRole('link', { name: 'Versions' }).click();
  await page.getByRole('heading', { level: 1, name: /Versions of Production/ }).waitFor();
  await page.getByRole('radio', { name: 'Compare from version 3' }).check();
  await page.getByRole('radio', { name: 'Compare to version 4' }).check();
  const diff = page.getByRole('table', { name: 'Changes from version 3 to 4' });
  await diff.waitFor();
  assert.match((await diff.textContent())!, /new-checkout\/enabled.*true.*false/);
  await visitScreen(page, '11-versions-diff', /Versions of Production/);
  await page.getByRole('button', { name: 'Roll back to 3' }).click();
  const plan = page.getByRole('dialog', { name: 'Roll Production back to version 3' });
  await plan.getByRole('table', { name: 'What the rollback changes' }).waitFor();
  await plan.getByLabel('Reason (optional)').fill('turned off by mistake');
  await checkAccessibility(page, 'rollback-plan');
  await screenshot(page, '12-rollback-plan');
  await plan.getByRole('button', { name: 'Apply rollback' }).click();
  await page.getByRole('row', { name: /^5 current rollback\.apply/ }).waitFor();
  await page.goto(`${c.base}/apps/${appId}/prod/flags`);
  await page.getByRole('switch', { name: /new-checkout is on/ }).waitFor();

  // The playground: the prod key of this tab (kept when the app was created), a context, the result.
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('heading', { level: 1, name: /Evaluate in Production/ }).waitFor();
  await page.getByLabel('Flag (empty: every flag)').fill('new-checkout');
  await page.getByLabel('Context (JSON)').fill('{ "targetingKey": "user-42", "plan": "beta" }');
  await page.getByRole('button', { name: 'Evaluate' }).click();
  const result = page.getByRole('row', { name: /^new-checkout/ });
  await result.waitFor();
  assert.match((await result.textContent())!, /true.*TARGETING_MATCH.*beta/);
  await page.getByRole('button', { name: 'Copy as curl' }).click();
  const curl = await clipboardText(page);
  assert.match(curl, /curl -s -X POST '.*\/api\/v1\/evaluate'/);
  assert.match(curl, /\$ENSIGN_SDK_KEY/);
  assert.ok(!curl.includes(prodKey), 'no secret in the clipboard');
  assert.match(curl, /"flagKey":"new-checkout"/);
  await visitScreen(page, '13-playground', /Evaluate in Production/);

  // Every other screen, each with its empty state.
  await page.goto(`${c.base}/apps/${appId}/prod/approvals`);
  await page.getByText('No open proposals').waitFor();
  await visitScreen(page, '14-approvals-empty', /Approvals in Production/);
  await page.goto(`${c.base}/apps/${appId}/prod/experiments`);
  await page.getByText('No experiments in this environment').waitFor();
  await visitScreen(page, '15-experiments-empty', /Experiments in Production/);
  await page.goto(`${c.base}/apps/${appId}/prod/insights?flag=new-checkout&days=7`);
  await page.getByText('No events for new-checkout in this window').waitFor();
  await visitScreen(page, '16-insights-empty', /Insights in Production/);
  await page.goto(`${c.base}/apps/${appId}/changes`);
  await page.getByText('rollback.apply').first().waitFor();
  await visitScreen(page, '17-changes', /Changes in Web Shop/);
  await page.getByLabel('Source', { exact: true }).selectOption('rollback');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/source=rollback/);
  await page.locator('.feed > li').first().waitFor();
  assert.equal(await page.locator('.feed > li').count(), 1, 'the filter leaves the one rollback');
  await page.goto(`${c.base}/apps/${appId}/members`);
  await page.getByRole('row', { name: /ada@example.com \(you\)/ }).waitFor();
  await visitScreen(page, '18-members', /Members of Web Shop/);
  await page.goto(`${c.base}/apps/${appId}/keys`);
  await page.getByRole('table', { name: 'Keys, newest first' }).waitFor();
  await page.getByLabel('Type', { exact: true }).selectOption('pub');
  await page.getByLabel('Name (optional)').fill('web client');
  await page.getByRole('button', { name: 'Create key' }).click();
  const created = page.getByRole('dialog', { name: 'Copy the new key now' });
  assert.match((await created.locator('code').textContent())!, /^pub_/);
  await created.getByRole('button', { name: 'Done' }).click();
  await page
    .getByRole('row', { name: /web client/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke key' }).click();
  await page
    .getByRole('row', { name: /web client/ })
    .getByText('revoked')
    .waitFor();
  await visitScreen(page, '19-keys', /Keys of Web Shop/);

  // Keyboard only: reach the switch with Tab, open the confirmation with Space, confirm with Enter.
  await page.goto(`${c.base}/apps/${appId}/prod/flags`);
  await page.getByRole('switch', { name: /new-checkout is on/ }).waitFor();
  await tabTo(page, 'button[role="switch"]');
  await page.keyboard.press('Space');
  await page.getByRole('alertdialog').waitFor();
  assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Cancel', 'the safe choice has the focus');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Turn off in production');
  await page.keyboard.press('Enter');
  await page.getByRole('switch', { name: /new-checkout is off/ }).waitFor();
  await page.getByRole('alertdialog').waitFor({ state: 'detached' });

  // A narrow window: the same screen, usable and still accessible.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.reload();
  await page.getByRole('switch', { name: /new-checkout is off/ }).waitFor();
  await checkAccessibility(page, 'flags-narrow');
  await screenshot(page, '20-flags-narrow');
  const overflow = (await page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  )) as number;
  assert.ok(overflow <= 1, `the page does not scroll sideways (${overflow}px)`);
  await page.setViewportSize({ width: 1280, height: 860 });

  // Sign out: the token is revoked and forgotten; the console asks to sign in again.
  assert.equal(await sessionToken(page), token);
  assert.match(token, /^cli_/);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sign in to Ensign' }).waitFor();
  assert.equal(
    await page.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('ensign.')).length"),
    0,
    'nothing of the session is left in the tab',
  );
  assert.deepEqual(await context.cookies(), [], 'no cookie, ever');
  const after = await fetch(`${c.server.address}/api/v1/apps`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(after.status, 401, 'the token was revoked on the server');
  assertNoProblems(page);
});

test('a token revoked elsewhere: the next 401 clears the session and asks to sign in, then returns to the page', async (t) => {
  const c = await startConsole(t, 'console-session');
  const { page } = await c.newPage();
  await signUp(page, c.base, 'grace@example.com');
  const token = (await sessionToken(page))!;
  const revoked = await fetch(`${c.server.address}/api/v1/cli-token`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(revoked.status, 204);
  await page.goto(`${c.base}/apps?from=test`);
  await page.getByRole('heading', { level: 1, name: 'Sign in to Ensign' }).waitFor();
  assert.equal(await sessionToken(page), null);
  await page.getByLabel('E-mail').fill('grace@example.com');
  await page.getByLabel('Password').fill('wrong password here');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('Could not sign in').waitFor();
  await checkAccessibility(page, 'sign-in-error');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
  assert.match(page.url(), /\/console\/apps\?from=test$/, 'back to the page asked for');
  // The console's own 404.
  await page.goto(`${c.base}/nowhere/at/all`);
  await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  await checkAccessibility(page, 'not-found');
});
