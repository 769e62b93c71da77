// Small request helpers the route tests share: a signed-up user, an app with its keys.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const uniqueKey = () => `idem-${randomBytes(8).toString('hex')}`;

export async function signUp(app: FastifyInstance, email = `u-${randomBytes(4).toString('hex')}@example.com`, password = 'correct horse battery') {
  const res = await app.inject({ method: 'POST', url: '/api/v1/cli-token', payload: { flow: 'signUp', email, password } });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  return { token: body.token as string, userId: body.user.id as string, email, password };
}

export interface CreatedAppFixture {
  appId: string;
  body: any;
  sdk: Record<string, string>;
  admin: string;
}

export async function createApp(app: FastifyInstance, token: string, slug = `app-${randomBytes(3).toString('hex')}`): Promise<CreatedAppFixture> {
  const res = await app.inject({
    method: 'POST', url: '/api/v1/apps', headers: { ...bearer(token), 'idempotency-key': uniqueKey() }, payload: { name: `App ${slug}`, slug },
  });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json();
  const sdk: Record<string, string> = {};
  for (const k of body.keys) sdk[k.env] = k.token;
  return { appId: body.app.id, body, sdk, admin: body.adminKey.token };
}

export async function createKey(app: FastifyInstance, token: string, payload: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/api/v1/keys', headers: { ...bearer(token), 'idempotency-key': uniqueKey() }, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().key as { id: string; token: string; type: string };
}
