// Every validation family of the flag model through PATCH /api/v1/flags: each bad body is a 400 whose
// details point at the offending field, and nothing is written.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { createApp, signUp } from '../../../../test/helpers/fixtures.js';
import { flagsClient } from './flags.test-client.js';

const rule = (operator: string, values: unknown[], extra: Record<string, unknown> = {}) => ({
  rules: [{ id: 'r1', conditions: [{ attribute: 'user.plan', operator, values }], serve: { value: true }, ...extra }],
});

/** Values each operator accepts, and values it refuses (path of the refusal below /rules/0/conditions/0). */
const OPERATOR_CASES: { operator: string; good: unknown[]; bad: unknown[]; badPath: string }[] = [
  ...['in', 'notIn', 'eq', 'neq'].map((operator) => ({
    operator,
    good: ['gold', 3, true],
    bad: [{ tier: 'gold' }],
    badPath: '/values/0',
  })),
  ...['contains', 'notContains', 'startsWith', 'endsWith'].map((operator) => ({
    operator,
    good: ['go'],
    bad: [42],
    badPath: '/values/0',
  })),
  ...['lt', 'lte', 'gt', 'gte'].map((operator) => ({ operator, good: [10.5], bad: ['10'], badPath: '/values/0' })),
  ...['semverEq', 'semverLt', 'semverGt'].map((operator) => ({
    operator,
    good: ['1.4.0'],
    bad: ['one.four'],
    badPath: '/values/0',
  })),
  ...['before', 'after'].map((operator) => ({
    operator,
    good: ['2026-01-31T09:00:00Z'],
    bad: ['next tuesday'],
    badPath: '/values/0',
  })),
  ...['exists', 'notExists'].map((operator) => ({ operator, good: [], bad: ['x'], badPath: '/values' })),
  { operator: 'matches', good: ['^gold-[0-9]+$'], bad: ['^gold', 'second'], badPath: '/values' },
];

const BAD_BODIES: { name: string; body: Record<string, unknown>; path: string; code?: string }[] = [
  { name: 'bool flag with a string value', body: { type: 'bool', value: 'yes' }, path: '/value' },
  { name: 'number flag with a numeric string', body: { type: 'number', value: '1' }, path: '/value' },
  { name: 'string flag with a number', body: { type: 'string', value: 1 }, path: '/value' },
  { name: 'string value over 32 KiB', body: { type: 'string', value: 'x'.repeat(32 * 1024 + 1) }, path: '/value' },
  { name: 'json value over 32 KiB', body: { type: 'json', value: { big: 'x'.repeat(32 * 1024) } }, path: '/value' },
  { name: 'unknown type', body: { type: 'date', value: 'x' }, path: '/type' },
  { name: 'key with a space', body: { key: 'new checkout', type: 'bool', value: true }, path: '/key' },
  { name: 'key starting with a dot', body: { key: '.hidden', type: 'bool', value: true }, path: '/key' },
  { name: 'key with a slash', body: { key: 'a/b', type: 'bool', value: true }, path: '/key' },
  { name: 'key over 128 characters', body: { key: 'k'.repeat(129), type: 'bool', value: true }, path: '/key' },
  { name: 'unknown field', body: { type: 'bool', value: true, archived: true }, path: '/archived' },
  {
    name: 'unknown field inside a rule',
    body: { type: 'bool', value: true, ...rule('eq', ['a'], { priority: 1 }) },
    path: '/rules/0/priority',
  },
  {
    name: 'unknown operator',
    body: { type: 'bool', value: true, ...rule('like', ['a']) },
    path: '/rules/0/conditions/0/operator',
  },
  {
    name: 'rule serving a value of another type',
    body: { type: 'bool', value: true, rules: [{ id: 'r', conditions: [], serve: { value: 'on' } }] },
    path: '/rules/0/serve/value',
  },
  {
    name: 'rule serving two things',
    body: { type: 'bool', value: true, rules: [{ id: 'r', conditions: [], serve: { value: true, variant: 'a' } }] },
    path: '/rules/0/serve',
  },
  {
    name: 'rule serving an unknown variant',
    body: { type: 'bool', value: true, rules: [{ id: 'r', conditions: [], serve: { variant: 'a' } }] },
    path: '/rules/0/serve/variant',
  },
  {
    name: 'duplicate rule ids',
    body: {
      type: 'bool',
      value: true,
      rules: [
        { id: 'r', conditions: [], serve: { value: true } },
        { id: 'r', conditions: [], serve: { value: false } },
      ],
    },
    path: '/rules/1/id',
  },
  {
    name: 'regular expression over 256 characters',
    body: { type: 'bool', value: true, ...rule('matches', ['a'.repeat(257)]) },
    path: '/rules/0/conditions/0/values/0',
  },
  {
    name: 'regular expression that does not compile',
    body: { type: 'bool', value: true, ...rule('matches', ['(unclosed']) },
    path: '/rules/0/conditions/0/values/0',
  },
  {
    name: 'regular expression with lookahead',
    body: { type: 'bool', value: true, ...rule('matches', ['^(?=.*admin)']) },
    path: '/rules/0/conditions/0/values/0',
  },
  {
    name: 'regular expression with a backreference',
    body: { type: 'bool', value: true, ...rule('matches', ['^(a)\\1$']) },
    path: '/rules/0/conditions/0/values/0',
  },
  {
    name: 'empty values for in',
    body: { type: 'bool', value: true, ...rule('in', []) },
    path: '/rules/0/conditions/0/values',
  },
  {
    name: 'variant weights summing to 90',
    body: {
      type: 'string',
      value: 'a',
      variants: [
        { key: 'a', value: 'a', weight: 50 },
        { key: 'b', value: 'b', weight: 40 },
      ],
    },
    path: '/variants',
  },
  {
    name: 'variant value of another type',
    body: { type: 'string', value: 'a', variants: [{ key: 'a', value: 1, weight: 100 }] },
    path: '/variants/0/value',
  },
  {
    name: 'duplicate variant keys',
    body: {
      type: 'string',
      value: 'a',
      variants: [
        { key: 'a', value: 'a', weight: 50 },
        { key: 'a', value: 'b', weight: 50 },
      ],
    },
    path: '/variants/1/key',
  },
  {
    name: 'rollout with three decimals',
    body: { type: 'bool', value: false, rollout: { percentage: 12.345, value: true } },
    path: '/rollout/percentage',
  },
  {
    name: 'rollout over 100',
    body: { type: 'bool', value: false, rollout: { percentage: 101, value: true } },
    path: '/rollout/percentage',
  },
  {
    name: 'rollout value of another type',
    body: { type: 'bool', value: false, rollout: { percentage: 10, value: 'on' } },
    path: '/rollout/value',
  },
  {
    name: 'rollout and variants together',
    body: {
      type: 'string',
      value: 'a',
      rollout: { percentage: 10, value: 'b' },
      variants: [{ key: 'a', value: 'a', weight: 100 }],
    },
    path: '/variants',
    code: 'rollout_variants_exclusive',
  },
  {
    name: 'override of another type',
    body: { type: 'bool', value: false, overrides: { 'user-42': 'yes' } },
    path: '/overrides/user-42',
  },
  {
    name: 'metadata over 4 KiB',
    body: { type: 'bool', value: false, metadata: { notes: 'x'.repeat(4096) } },
    path: '/metadata',
  },
  {
    name: 'dependency on an unknown flag',
    body: { type: 'bool', value: false, dependencies: [{ flag: 'ghost', value: true }] },
    path: '/dependencies/0/flag',
  },
  {
    name: 'dependency on itself',
    body: { key: 'self', type: 'bool', value: false, dependencies: [{ flag: 'self', value: true }] },
    path: '/dependencies/0/flag',
  },
  {
    name: 'description over 1024 characters',
    body: { type: 'bool', value: false, description: 'd'.repeat(1025) },
    path: '/description',
  },
];

for (const dialect of dialects) {
  describe(`flag validation on ${dialect}`, () => {
    // Each test makes its own user and app, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('every invalid body is a 400 pointing at the field, and nothing is written', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const flags = flagsClient(app, user.token, (await createApp(app, user.token)).appId);
      for (const c of BAD_BODIES) {
        const res = await flags.patch({ key: 'flag-under-test', ...c.body });
        assert.equal(res.statusCode, 400, `${c.name}: ${res.body}`);
        const error = res.json().error;
        assert.equal(error.code, c.code ?? 'validation_error', c.name);
        assert.ok(
          error.details.some((d: any) => d.path === c.path),
          `${c.name}: expected ${c.path} in ${JSON.stringify(error.details)}`,
        );
        assert.equal(typeof error.message, 'string');
      }
      assert.deepEqual((await flags.list()).json(), { flags: [], version: 0 });
    });

    test('a value outside a fixed list is one detail naming the allowed values, not one per value', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const created = await createApp(app, user.token);
      const flags = flagsClient(app, user.token, created.appId);
      const operator = (await flags.patch({ key: 'k', type: 'bool', value: true, ...rule('like', ['a']) })).json()
        .error;
      assert.deepEqual(operator.details, [
        {
          path: '/rules/0/conditions/0/operator',
          message:
            'must be one of: in, notIn, contains, notContains, startsWith, endsWith, matches, eq, neq, lt, lte, gt, gte, semverEq, semverLt, semverGt, before, after, exists, notExists',
        },
      ]);
      assert.equal(operator.message, `/rules/0/conditions/0/operator ${operator.details[0].message}`);
      const type = (await flags.patch({ key: 'k', type: 'boolean', value: true })).json().error;
      assert.deepEqual(type.details, [{ path: '/type', message: 'must be one of: bool, string, number, json' }]);
      const bulk = (await flags.bulk({ advanced: { flags: { k: rule('like', ['a']) } } })).json().error;
      assert.equal(bulk.details.length, 1, JSON.stringify(bulk.details));
      assert.match(bulk.details[0].message, /^must be one of: in, notIn, /);
      // A single allowed value is named too.
      const action = (
        await app.inject({
          method: 'PATCH',
          url: '/api/v1/keys',
          headers: { authorization: `Bearer ${user.token}` },
          payload: { keyId: 'key_x', action: 'delete' },
        })
      ).json().error;
      assert.deepEqual(action.details, [{ path: '/action', message: 'must be "revoke"' }]);
    });

    test('each operator accepts well-typed values and refuses others', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const flags = flagsClient(app, user.token, (await createApp(app, user.token)).appId);
      for (const c of OPERATOR_CASES) {
        const good = await flags.patch({
          key: `op-${c.operator}`,
          type: 'bool',
          value: false,
          ...rule(c.operator, c.good),
        });
        assert.equal(good.statusCode, 200, `${c.operator} good: ${good.body}`);
        const bad = await flags.patch({ key: `op-${c.operator}`, ...rule(c.operator, c.bad) });
        assert.equal(bad.statusCode, 400, `${c.operator} bad`);
        const path = `/rules/0/conditions/0${c.badPath}`;
        assert.ok(
          bad.json().error.details.some((d: any) => d.path === path),
          `${c.operator}: ${JSON.stringify(bad.json().error.details)}`,
        );
      }
    });

    test('a dependency cycle is refused; deleting a prerequisite is refused while it is named', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const flags = flagsClient(app, user.token, (await createApp(app, user.token)).appId);
      await flags.patch({ key: 'a', type: 'bool', value: true });
      assert.equal(
        (await flags.patch({ key: 'b', type: 'bool', value: true, dependencies: [{ flag: 'a', value: true }] }))
          .statusCode,
        200,
      );
      const cycle = await flags.patch({ key: 'a', dependencies: [{ flag: 'b', value: true }] });
      assert.equal(cycle.statusCode, 400);
      assert.match(cycle.json().error.message, /cycle/);
      const mismatch = await flags.patch({ key: 'a', type: 'string', value: 'x' });
      assert.equal(mismatch.statusCode, 400, 'b requires a to be true, which a string flag never is');
      assert.equal(mismatch.json().error.details[0].path, '/key');
      const blocked = await flags.remove('a');
      assert.equal(blocked.statusCode, 400);
      assert.match(blocked.json().error.message, /prerequisite of "b"/);
      assert.equal((await flags.list()).json().version, 2);
    });

    test('valid models of every type are stored as given', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const flags = flagsClient(app, user.token, (await createApp(app, user.token)).appId);
      const full = {
        key: 'checkout.v2:ui_x',
        type: 'string',
        value: 'control',
        clientEnabled: true,
        description: 'New checkout',
        variants: [
          { key: 'control', value: 'control', weight: 33.33 },
          { key: 'a', value: 'a', weight: 33.33 },
          { key: 'b', value: 'b', weight: 33.34 },
        ],
        rules: [
          {
            id: 'beta',
            description: 'beta testers',
            conditions: [{ attribute: 'groups', operator: 'contains', values: ['beta'] }],
            serve: { variant: 'a' },
          },
        ],
        overrides: { 'user-1': 'b' },
        metadata: { owner: 'team-checkout' },
      };
      const res = await flags.patch(full);
      assert.equal(res.statusCode, 200, res.body);
      const { createdAt: _c, updatedAt: _u, ...stored } = res.json().flag;
      assert.deepEqual(stored, { ...full, rollout: null, dependencies: [], enabled: true, offValue: 'control' });
      for (const [type, value] of [
        ['bool', true],
        ['number', 2.5],
        ['json', { a: [1, null] }],
        ['json', null],
      ] as const) {
        const r = await flags.patch({
          key: `t-${type}-${value === null ? 'null' : 'v'}`,
          type,
          value,
          rollout: type === 'bool' ? { percentage: 25, value: false, salt: 's' } : null,
        });
        assert.equal(r.statusCode, 200, r.body);
        assert.deepEqual(r.json().flag.value, value);
      }
    });
  });
}
