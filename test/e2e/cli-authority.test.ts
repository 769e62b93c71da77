// End to end against a real server: members, environment policy, rollbacks and the four-eyes
// workflow driven by two people through the `ensign` command.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';

test('ensign members, envs policy, rollback and the authority workflow against a real server', async (t) => {
  const { address, dir } = await startTestServer(t, 'cli-authority');
  const person = (name: string) => {
    const home = join(dir, name);
    mkdirSync(home, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ENSIGN_URL: address,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'xdg'),
      ENSIGN_TOKEN: '',
    };
    const cli = async (args: string[], stdin = '') => {
      const r = await runCli(args, env, stdin);
      assert.equal(r.code, 0, `ensign ${args.join(' ')} failed:\n${r.stderr}`);
      return r;
    };
    return {
      env,
      cli,
      json: async (args: string[]) => JSON.parse((await cli([...args, '--json'])).stdout),
      fails: (args: string[]) => runCli(args, env),
    };
  };
  const alice = person('alice');
  const bob = person('bob');
  await alice.cli(['login', '--sign-up', '--email', 'alice@example.com', '--password-stdin'], 'a long enough password');
  await bob.cli(['login', '--sign-up', '--email', 'bob@example.com', '--password-stdin'], 'another long password');
  const appId: string = (await alice.json(['apps', 'create', 'Shop', '--slug', 'shop'])).app.id;
  const prod = ['--app', appId, '--env', 'prod'];

  await t.test('members', async () => {
    const invited = await alice.json(['members', 'invite', 'bob@example.com', '--app', appId, '--role', 'viewer']);
    assert.equal(invited.invitation.role, 'viewer');
    const unknown = await alice.json(['members', 'add', 'nobody@example.com', '--app', appId, '--role', 'editor']);
    assert.deepEqual(
      Object.keys(unknown.invitation).sort(),
      Object.keys(invited.invitation).sort(),
      'the same answer for an address without an account',
    );
    const pending = await alice.cli(['members', 'invitations', '--app', appId]);
    assert.match(pending.stdout, /bob@example\.com\s+viewer/);
    assert.match(pending.stdout, /nobody@example\.com\s+editor/);
    assert.match(
      (await alice.cli(['members', 'revoke', unknown.invitation.id, '--app', appId])).stdout,
      /Revoked inv_/,
    );
    assert.doesNotMatch((await alice.cli(['members', 'invitations', '--app', appId])).stdout, /nobody@example\.com/);

    assert.match(
      (await bob.fails(['members', 'list', '--app', appId])).stderr,
      /forbidden/,
      'not a member before accepting',
    );
    const mine = await bob.json(['invitations', 'list']);
    assert.deepEqual(
      mine.invitations.map((i: any) => [i.id, i.appId, i.role]),
      [[invited.invitation.id, appId, 'viewer']],
    );
    assert.match(
      (await bob.cli(['invitations', 'list'])).stdout,
      new RegExp(`${invited.invitation.id}\\s+${appId}\\s+Shop\\s+viewer`),
    );
    assert.match(
      (await alice.fails(['invitations', 'accept', invited.invitation.id])).stderr,
      /not_found/,
      'only the invitee finds it',
    );
    const joined = await bob.json(['invitations', 'accept', invited.invitation.id]);
    const added = { member: joined.member };
    assert.equal(added.member.role, 'viewer');
    const listed = await alice.cli(['members', 'list', '--app', appId]);
    assert.match(listed.stdout, /bob@example\.com\s+viewer/);
    const refused = await bob.fails(['flags', 'set', 'x', ...prod, '--type', 'bool', '--value', 'true']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /forbidden/);
    assert.equal(
      (await alice.json(['members', 'set-role', added.member.userId, '--app', appId, '--role', 'editor'])).member.role,
      'editor',
    );
    const lastOwner = await alice.fails([
      'members',
      'remove',
      (await alice.json(['members', 'list', '--app', appId])).members[0].userId,
      '--app',
      appId,
    ]);
    assert.match(lastOwner.stderr, /last_owner/);
  });

  await t.test('rollback plan and apply', async () => {
    await alice.json(['flags', 'set', 'checkout', ...prod, '--type', 'bool', '--value', 'false']);
    await alice.json(['flags', 'set', 'checkout', ...prod, '--value', 'true']);
    const { plan } = await alice.json(['rollback', 'plan', ...prod, '--to', '1']);
    assert.equal(plan.resultVersion, 3);
    const text = await alice.cli(['rollback', 'plan', ...prod, '--to', '1']);
    assert.match(text.stdout, /change\s+flag\s+checkout\s+\/value\s+true\s+false/);
    const applied = await alice.json([
      'rollback',
      'apply',
      ...prod,
      '--to',
      '1',
      '--plan-digest',
      plan.digest,
      '--reason',
      'oops',
    ]);
    assert.equal(applied.version, 3);
    const stale = await alice.fails([
      'rollback',
      'apply',
      ...prod,
      '--to',
      '1',
      '--expected-version',
      '2',
      '--plan-digest',
      plan.digest,
    ]);
    assert.match(stale.stderr, /version_conflict/);
  });

  await t.test('protected prod: propose, approve by the other, execute, read back', async () => {
    const policy = await alice.json(['envs', 'policy', ...prod, '--required-approvals', '1']);
    assert.equal(policy.environment.policy.requiredApprovals, 1);
    assert.match((await alice.fails(['flags', 'toggle', 'checkout', ...prod])).stderr, /approval_required/);
    const { proposal } = await alice.json(['propose', 'toggle', 'checkout', ...prod, '--reason', 'launch']);
    assert.equal(proposal.baseVersion, 3);
    assert.match((await alice.fails(['approve', proposal.id, ...prod])).stderr, /self_approval_forbidden/);
    const list = await bob.cli(['proposals', 'list', ...prod]);
    assert.match(list.stdout, new RegExp(`${proposal.id}\\s+open\\s+flag\\.patch`));
    const approved = await bob.json(['approve', proposal.id, ...prod, '--digest', proposal.digest, '--comment', 'ok']);
    assert.match(approved.approval.id, /^apv_/);
    const { receipt } = await alice.json(['execute', proposal.id, ...prod]);
    assert.equal(receipt.appliedVersion, 4);
    assert.equal((await bob.json(['execute', proposal.id, ...prod])).receipt.id, receipt.id, 'at most once');
    const shown = await bob.json(['proposals', 'show', proposal.id, '--app', appId]);
    assert.equal(shown.status, 'executed');
    const observed = await bob.json(['readback', receipt.id, ...prod]);
    assert.equal(observed.observation.inEffect, true);

    const file = join(dir, 'bulk.json');
    writeFileSync(file, JSON.stringify({ flags: { checkout: false } }));
    const bulk = (await bob.json(['propose', 'bulk', ...prod, '--file', file])).proposal;
    assert.equal(bulk.change.kind, 'bulk.apply');
    const rollback = (await bob.json(['propose', 'rollback', ...prod, '--to', '1'])).proposal;
    assert.equal(rollback.change.kind, 'rollback.apply');
    const set = (await bob.json(['propose', 'set', 'banner', ...prod, '--type', 'string', '--value', 'hi'])).proposal;
    assert.deepEqual(set.change.body, { key: 'banner', type: 'string', value: 'hi' });
  });

  await t.test('tokens create', async () => {
    const minted = await bob.json([
      'tokens',
      'create',
      '--capabilities',
      'read,propose',
      '--apps',
      appId,
      '--envs',
      'prod',
      '--ttl',
      '600',
    ]);
    assert.match(minted.token, /^cli_/);
    const scoped = await runCli(['flags', 'list', ...prod, '--json'], { ...bob.env, ENSIGN_TOKEN: minted.token });
    assert.equal(scoped.code, 0, scoped.stderr);
    const dev = await runCli(['flags', 'list', '--app', appId, '--env', 'dev'], {
      ...bob.env,
      ENSIGN_TOKEN: minted.token,
    });
    assert.match(dev.stderr, /forbidden/);
  });
});
