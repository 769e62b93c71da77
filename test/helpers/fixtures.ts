// Small request helpers the route tests share: a signed-up user, an app with its keys, error-body
// assertions, tokens inserted directly, a movable clock.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { newId } from '../../src/platform/ids.js';
import { issueToken } from '../../src/platform/tokens.js';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const uniqueKey = () => `idem-${randomBytes(8).toString('hex')}`;
export const fingerprintOf = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 16);
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export interface CallOptions {
  token?: string;
  payload?: unknown;
  headers?: Record<string, string>;
  /** Sends an Idempotency-Key (a fresh one when true). */
  idem?: string | true;
}

/** One request: bearer token, JSON payload, extra headers and an optional idempotency key. */
export function call(app: FastifyInstance, method: Method, url: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...(options.token ? bearer(options.token) : {}), ...options.headers };
  if (options.idem) headers['idempotency-key'] = options.idem === true ? uniqueKey() : options.idem;
  return app.inject({
    method,
    url,
    headers,
    ...(options.payload !== undefined ? { payload: options.payload as object } : {}),
  });
}

/** Asserts the contract's error body: status, code, message, resolution and the response's request id. */
export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.equal(body.error?.code, code, res.body);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  assert.equal(typeof body.error.resolution, 'string');
  assert.ok(body.error.resolution.length > 0);
  assert.ok(res.headers['x-request-id'], 'X-Request-Id is set');
  assert.equal(body.error.requestId, res.headers['x-request-id']);
  return body.error as {
    code: string;
    message: string;
    resolution: string;
    requestId: string;
    details?: { path: string; message: string }[];
    metadata?: Record<string, unknown>;
  };
}

/** A 400 validation_error whose details name `path`. */
export function expectValidation(res: LightMyRequestResponse, path?: string) {
  const error = expectError(res, 400, 'validation_error');
  if (path !== undefined) {
    assert.ok(
      error.details?.some((d) => d.path === path),
      `details name ${path}: ${JSON.stringify(error.details)}`,
    );
  }
  return error;
}

/** Every object key anywhere in a JSON value. */
export function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysDeep(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysDeep(v, out);
    }
  }
  return out;
}

/** Asserts that none of the secrets occurs in the text. */
export function assertContainsNone(text: string, secrets: string[], where = 'text') {
  for (const s of secrets) assert.ok(!text.includes(s), `${where} contains a secret (${s.slice(0, 8)}…)`);
}

export async function signUp(
  app: FastifyInstance,
  email = `u-${randomBytes(4).toString('hex')}@example.com`,
  password = 'correct horse battery',
) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/cli-token',
    payload: { flow: 'signUp', email, password },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  return { token: body.token as string, userId: body.user.id as string, email, password };
}

export interface CreatedAppFixture {
  appId: string;
  body: any;
  sdk: Record<string, string>;
  admin: string;
  /** Every token the creation returned. */
  tokens: string[];
}

export async function createApp(
  app: FastifyInstance,
  token: string,
  slug = `app-${randomBytes(3).toString('hex')}`,
): Promise<CreatedAppFixture> {
  const res = await call(app, 'POST', '/api/v1/apps', { token, idem: true, payload: { name: `App ${slug}`, slug } });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json();
  const sdk: Record<string, string> = {};
  for (const k of body.keys) sdk[k.env] = k.token;
  return {
    appId: body.app.id,
    body,
    sdk,
    admin: body.adminKey.token,
    tokens: [...body.keys.map((k: any) => k.token), body.adminKey.token],
  };
}

export async function createKey(
  app: FastifyInstance,
  token: string,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const res = await call(app, 'POST', '/api/v1/keys', { token, idem: true, payload, headers });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().key as {
    id: string;
    token: string;
    type: string;
    env: string | null;
    prefix: string;
    createdAt: string;
  };
}

/** Makes `user` a member of the app with `role`: the owner invites, the user accepts (CONTRACT.md §8). */
export async function addMember(
  app: FastifyInstance,
  ownerToken: string,
  appId: string,
  user: { token: string; email: string },
  role: string,
) {
  const invited = await call(app, 'POST', `/api/v1/apps/${appId}/members`, {
    token: ownerToken,
    payload: { email: user.email, role },
  });
  assert.equal(invited.statusCode, 202, invited.body);
  const accepted = await call(app, 'POST', `/api/v1/invitations/${invited.json().invitation.id}/accept`, {
    token: user.token,
  });
  assert.equal(accepted.statusCode, 200, accepted.body);
  return accepted.json().member as {
    userId: string;
    email: string;
    role: string;
    createdAt: string;
    updatedAt: string;
  };
}

/** A user with one app: the usual starting point of a route test. */
export async function userWithApp(app: FastifyInstance) {
  const user = await signUp(app);
  const created = await createApp(app, user.token);
  return { user, ...created };
}

/** Inserts a cli_ token row directly: scoped (capability list) or already expired. */
export async function insertCliToken(
  db: Kysely<Database>,
  userId: string,
  options: { scope?: string[]; expiresAt?: string } = {},
) {
  const issued = issueToken('cli');
  const now = new Date();
  await db
    .insertInto('cli_tokens')
    .values({
      id: newId('tok'),
      user_id: userId,
      token_hash: issued.hash,
      prefix: issued.prefix,
      scope: options.scope ? JSON.stringify(options.scope) : null,
      created_at: now.toISOString(),
      expires_at: options.expiresAt ?? new Date(now.getTime() + 3600_000).toISOString(),
      revoked_at: null,
    })
    .execute();
  return issued.token;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
