// Fixtures shared by the evaluation and OFREP tests: one environment with a flag of every kind
// (static, targeted, overridden, rolled out, split, prerequisite, hidden from clients), requests,
// legacy error assertions, and a stored configuration that cannot be compiled.
import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createChangeNotifier } from '../../../db/notifications.js';
import { inTransaction } from '../../../db/transaction.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import {
  environmentFixture,
  putFlags,
  type EnvironmentFixture,
  type FlagInput,
} from '../../../../test/helpers/delivery-fixtures.js';
import type { TestApp } from '../../../../test/helpers/test-app.js';
import { createConfigStateStore } from '../../core/config/index.js';

export const FLAGS: FlagInput[] = [
  {
    key: 'dark-mode',
    type: 'bool',
    value: false,
    clientEnabled: true,
    metadata: { team: 'web', ticket: 42, internal: { deep: true } },
  },
  {
    key: 'checkout',
    type: 'string',
    value: 'classic',
    clientEnabled: true,
    overrides: { 'user-vip': 'vip' },
    rules: [
      {
        id: 'beta',
        conditions: [
          { attribute: 'plan', operator: 'in', values: ['beta'] },
          { attribute: 'country', operator: 'eq', values: ['NO'] },
        ],
        serve: { value: 'new' },
      },
    ],
  },
  { key: 'limit', type: 'number', value: 10, clientEnabled: true, rollout: { percentage: 50, value: 20 } },
  {
    key: 'banner',
    type: 'json',
    value: { text: 'hello' },
    clientEnabled: true,
    variants: [
      { key: 'red', value: { text: 'hello', color: 'red' }, weight: 50 },
      { key: 'blue', value: { text: 'hello', color: 'blue' }, weight: 50 },
    ],
  },
  {
    key: 'beta-tools',
    type: 'bool',
    value: true,
    clientEnabled: true,
    dependencies: [{ flag: 'dark-mode', value: true }],
  },
  { key: 'internal', type: 'string', value: 'secret', clientEnabled: false, metadata: { owner: 'ops' } },
];

export const FLAG_KEYS = FLAGS.map((f) => f.key).sort();
export const CLIENT_KEYS = FLAGS.filter((f) => f.clientEnabled)
  .map((f) => f.key)
  .sort();

/** An environment holding FLAGS, with its sdk_, pub_ and admin_ keys. */
export async function flagsFixture(test: TestApp, flags: FlagInput[] = FLAGS): Promise<EnvironmentFixture> {
  const fx = await environmentFixture(test.app);
  if (flags.length > 0) await putFlags(test.app, test.database.handle, test.database.pgSchema, fx, flags);
  return fx;
}

export function changeFlags(test: TestApp, fx: EnvironmentFixture, flags: FlagInput[]) {
  return putFlags(test.app, test.database.handle, test.database.pgSchema, fx, flags);
}

export function evaluate(app: FastifyInstance, token: string, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/evaluate',
    headers: { ...bearer(token), ...headers },
    payload: payload as object,
  });
}

/** The frozen legacy error shape: reason phrase, UPPER_SNAKE code, message and resolution, plus the
 * `details` of a validation error (whose resolution points at them). */
export function expectLegacyError(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  const fields = ['code', 'error', 'message', 'resolution'];
  if (/details/.test(body.resolution))
    assert.ok(Array.isArray(body.details) && body.details.length > 0, `the resolution points at details: ${res.body}`);
  if (body.details !== undefined) {
    assert.equal(status, 400, 'details only on validation errors');
    for (const detail of body.details) assert.deepEqual(Object.keys(detail).sort(), ['message', 'path']);
    fields.push('details');
  }
  assert.deepEqual(Object.keys(body).sort(), fields.sort(), res.body);
  assert.equal(body.error, STATUS_CODES[status]);
  assert.equal(body.code, code, res.body);
  assert.ok(body.message.length > 0 && body.resolution.length > 0);
}

/** Writes a configuration the engine refuses (a rule on an unknown variant), past validation, as
 * corrupt data or another writer could. */
export async function storeInvalidConfig(test: TestApp, fx: EnvironmentFixture): Promise<void> {
  const notifier = createChangeNotifier(test.database.handle, test.database.pgSchema);
  try {
    const store = createConfigStateStore(test.database.handle.db, notifier);
    await inTransaction(test.database.handle.db, async (trx) => {
      const locked = await store.lock(trx, fx.target);
      const state = structuredClone(locked.state);
      const at = new Date().toISOString();
      state.flags.broken = {
        key: 'broken',
        type: 'bool',
        value: false,
        enabled: true,
        offValue: false,
        clientEnabled: true,
        description: '',
        rollout: null,
        variants: null,
        rules: [{ id: 'r', conditions: [], serve: { variant: 'nope' } }],
        overrides: {},
        dependencies: [],
        metadata: {},
        createdAt: at,
        updatedAt: at,
      };
      await store.commit(trx, fx.target, locked, {
        state,
        changeId: null,
        operation: 'test.corrupt',
        authority: { type: 'system' },
      });
    });
  } finally {
    await notifier.close();
  }
}

/** Revokes an environment key through the keys API. */
export async function revokeKey(app: FastifyInstance, fx: EnvironmentFixture, token: string) {
  const keys = await app.inject({
    method: 'GET',
    url: `/api/v1/keys?appId=${fx.target.appId}&env=${fx.target.env}`,
    headers: bearer(fx.user.token),
  });
  const key = keys.json().keys.find((k: { prefix: string }) => token.startsWith(k.prefix));
  const res = await app.inject({
    method: 'PATCH',
    url: '/api/v1/keys',
    headers: bearer(fx.user.token),
    payload: { keyId: key.id, action: 'revoke' },
  });
  assert.equal(res.statusCode, 200, res.body);
}
