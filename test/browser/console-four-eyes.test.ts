// Four eyes in the console: an owner invites a second person, who accepts; the owner protects
// production and proposes turning a flag off; the second member approves and executes it; the
// proposer sees it applied and in effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  assertNoProblems,
  checkAccessibility,
  screenshot,
  sessionToken,
  signUp,
  startConsole,
  visitScreen,
} from './console-browser.js';

test('one user proposes, a second approves and executes, the first sees it applied', async (t) => {
  const c = await startConsole(t, 'console-four-eyes');
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
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return res.json() as Promise<any>;
  };

  const owner = await c.newPage();
  await signUp(owner.page, c.base, 'olivia@example.com');
  const ownerToken = (await sessionToken(owner.page))!;
  const created = await api(
    ownerToken,
    'POST',
    '/api/v1/apps',
    { name: 'Payments', slug: 'payments' },
    { 'idempotency-key': randomUUID() },
  );
  const appId = created.app.id as string;
  await api(ownerToken, 'PATCH', '/api/v1/flags', {
    appId,
    env: 'prod',
    key: 'instant-refunds',
    type: 'bool',
    value: true,
    description: 'Refund at once',
  });

  const reviewer = await c.newPage();
  await signUp(reviewer.page, c.base, 'ravi@example.com');

  // The owner invites Ravi as an editor, Ravi accepts on his apps page, and the owner protects
  // production with one approval, all in the console.
  await owner.page.goto(`${c.base}/apps/${appId}/members`);
  await owner.page.getByLabel('E-mail').fill('ravi@example.com');
  await owner.page.getByLabel('Role', { exact: true }).selectOption('editor');
  await owner.page.getByRole('button', { name: 'Invite' }).click();
  await owner.page
    .getByRole('table', { name: 'Pending invitations' })
    .getByRole('row', { name: /ravi@example.com/ })
    .waitFor();
  await checkAccessibility(owner.page, 'members-pending-invitation');
  await reviewer.page.goto(`${c.base}/apps`);
  await reviewer.page.getByRole('button', { name: 'Accept the invitation to Payments' }).click();
  await reviewer.page.getByRole('link', { name: 'Payments' }).first().waitFor();
  await checkAccessibility(reviewer.page, 'apps-after-accepting');
  await owner.page.reload();
  await owner.page
    .getByRole('row', { name: /ravi@example.com/ })
    .getByRole('combobox')
    .waitFor();
  assert.equal(
    await owner.page.getByRole('table', { name: 'Pending invitations' }).count(),
    0,
    'no invitation is pending once accepted',
  );
  await owner.page.goto(`${c.base}/apps/${appId}`);
  await owner.page.getByLabel('Required approvals for Production').fill('1');
  await owner.page
    .getByRole('row', { name: /Production/ })
    .getByRole('button', { name: 'Save' })
    .click();
  await owner.page
    .getByRole('row', { name: /Production/ })
    .getByText('Protected · 1 approval')
    .waitFor();
  await visitScreen(owner.page, 'four-eyes-01-protected-environment', 'Payments');

  // In a protected environment the switch proposes.
  await owner.page.goto(`${c.base}/apps/${appId}/prod/flags`);
  await owner.page.getByRole('switch', { name: /instant-refunds is on/ }).click();
  const dialog = owner.page.getByRole('dialog', { name: 'Propose this change' });
  await dialog.getByText('needs 1 approval from someone else').waitFor();
  await dialog.getByLabel('Reason (optional)').fill('refund fraud spike');
  await checkAccessibility(owner.page, 'propose-dialog');
  await screenshot(owner.page, 'four-eyes-02-propose');
  await dialog.getByRole('button', { name: 'Propose' }).click();
  await owner.page.getByRole('heading', { level: 1, name: /Proposal: turn instant-refunds off/ }).waitFor();
  await owner.page.getByText('You proposed this change: someone else approves it.').waitFor();
  assert.equal(
    await owner.page.getByRole('button', { name: 'Approve' }).count(),
    0,
    'a proposer is not offered to approve',
  );
  const proposalUrl = owner.page.url();
  await visitScreen(owner.page, 'four-eyes-03-proposal-open', /Proposal/);
  // Nothing changed yet.
  const before = await api(ownerToken, 'GET', `/api/v1/flags?appId=${appId}&env=prod`);
  assert.equal(before.flags[0].enabled, true);

  // Ravi finds it in the inbox, approves and executes.
  await reviewer.page.goto(`${c.base}/apps/${appId}/prod/approvals`);
  await reviewer.page.getByText('1 change to what is served').click();
  await reviewer.page
    .getByRole('table', { name: /Changes of prp_/ })
    .getByText('instant-refunds/enabled')
    .waitFor();
  await visitScreen(reviewer.page, 'four-eyes-04-inbox', /Approvals in Production/);
  await reviewer.page.getByRole('link', { name: 'turn instant-refunds off' }).click();
  await reviewer.page
    .getByRole('table', { name: 'Changes the proposal makes when executed' })
    .getByText('instant-refunds/enabled')
    .waitFor();
  await visitScreen(reviewer.page, 'four-eyes-05-review', /Proposal/);
  await reviewer.page.getByLabel('Comment (optional)').fill('checked the dashboard');
  await reviewer.page.getByRole('button', { name: 'Approve' }).click();
  await reviewer.page.getByText('You approved this change.').waitFor();
  await reviewer.page.getByRole('button', { name: 'Execute' }).click();
  await reviewer.page.getByRole('heading', { level: 2, name: 'Executed' }).waitFor();
  await reviewer.page.getByText(/In effect: the live configuration equals what this proposal applied/).waitFor();
  await visitScreen(reviewer.page, 'four-eyes-06-executed', /Proposal/);

  // Olivia sees it applied.
  await owner.page.goto(proposalUrl);
  await owner.page.getByRole('heading', { level: 1, name: /executed/ }).waitFor();
  await owner.page.getByText(/In effect/).waitFor();
  await owner.page.getByText(/checked the dashboard/).waitFor();
  await owner.page.goto(`${c.base}/apps/${appId}/prod/flags`);
  await owner.page.getByRole('switch', { name: /instant-refunds is off/ }).waitFor();
  await owner.page.goto(`${c.base}/apps/${appId}/prod/approvals?status=executed`);
  await owner.page.getByRole('link', { name: 'turn instant-refunds off' }).waitFor();
  await visitScreen(owner.page, 'four-eyes-07-inbox-executed', /Approvals in Production/);
  const after = await api(ownerToken, 'GET', `/api/v1/flags?appId=${appId}&env=prod`);
  assert.equal(after.flags[0].enabled, false);
  assertNoProblems(owner.page);
  assertNoProblems(reviewer.page);
});
