// Request helpers the authority tests share: a team of two on one app, and the workflow's routes.
import type { FastifyInstance } from 'fastify';
import { addMember, call, signUp, userWithApp } from '../../../../test/helpers/fixtures.js';

/** Alice owns the app; Bob is an editor; Val a viewer. */
export async function twoPeople(app: FastifyInstance) {
  const owner = await userWithApp(app);
  const bob = await signUp(app);
  const val = await signUp(app);
  for (const [user, role] of [
    [bob, 'editor'],
    [val, 'viewer'],
  ] as const) {
    await addMember(app, owner.user.token, owner.appId, user, role);
  }
  return { ...owner, alice: owner.user, bob, val };
}

export function authorityClient(app: FastifyInstance, appId: string, env = 'prod') {
  return {
    protect: (token: string, requiredApprovals: number) =>
      call(app, 'PATCH', '/api/v1/envs', { token, payload: { appId, env, requiredApprovals } }),
    propose: (token: string, body: Record<string, unknown>) =>
      call(app, 'POST', '/api/v1/authority/propose', { token, payload: { appId, env, ...body } }),
    approve: (token: string, proposalId: string, digest: string, extra: Record<string, unknown> = {}) =>
      call(app, 'POST', '/api/v1/authority/approve', { token, payload: { appId, env, proposalId, digest, ...extra } }),
    execute: (token: string, proposalId: string, digest: string, on = app) =>
      call(on, 'POST', '/api/v1/authority/execute', { token, payload: { appId, env, proposalId, digest } }),
    readback: (token: string, receiptId: string) =>
      call(app, 'POST', '/api/v1/authority/readback', { token, payload: { appId, env, receiptId } }),
    show: (token: string, id: string) =>
      call(app, 'GET', `/api/v1/authority/proposals/${id}?appId=${appId}`, { token }),
    list: (token: string, query: Record<string, string> = {}) =>
      call(app, 'GET', `/api/v1/authority/proposals?${new URLSearchParams({ appId, env, ...query }).toString()}`, {
        token,
      }),
    mint: (token: string, body: Record<string, unknown>) =>
      call(app, 'POST', '/api/v1/authority/tokens', { token, payload: body }),
  };
}
