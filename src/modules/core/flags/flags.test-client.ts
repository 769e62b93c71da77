// Request helpers the flag and version tests share: one environment of one app, addressed once.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { bearer } from '../../../../test/helpers/fixtures.js';

export interface FlagsClient {
  patch(body: Record<string, unknown>, token?: string): Promise<LightMyRequestResponse>;
  list(token?: string): Promise<LightMyRequestResponse>;
  remove(key: string, extra?: Record<string, string | number>, token?: string): Promise<LightMyRequestResponse>;
  bulk(
    body: Record<string, unknown>,
    options?: { token?: string; headers?: Record<string, string>; method?: 'PATCH' | 'POST' },
  ): Promise<LightMyRequestResponse>;
  versions(path?: string, query?: Record<string, string | number>, token?: string): Promise<LightMyRequestResponse>;
}

export function flagsClient(app: FastifyInstance, token: string, appId: string, env = 'dev'): FlagsClient {
  const qs = (q: Record<string, string | number>) =>
    new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return {
    patch: (body, t = token) =>
      app.inject({ method: 'PATCH', url: '/api/v1/flags', headers: bearer(t), payload: { appId, env, ...body } }),
    list: (t = token) => app.inject({ method: 'GET', url: `/api/v1/flags?${qs({ appId, env })}`, headers: bearer(t) }),
    remove: (key, extra = {}, t = token) =>
      app.inject({ method: 'DELETE', url: `/api/v1/flags?${qs({ appId, env, key, ...extra })}`, headers: bearer(t) }),
    bulk: (body, options = {}) =>
      app.inject({
        method: options.method ?? 'PATCH',
        url: '/api/v1/flags/bulk',
        headers: { ...bearer(options.token ?? token), ...options.headers },
        payload: { appId, env, ...body },
      }),
    versions: (path = '', query = {}, t = token) =>
      app.inject({
        method: 'GET',
        url: `/api/v1/config-versions${path}?${qs({ appId, env, ...query })}`,
        headers: bearer(t),
      }),
  };
}

/** Journal entries of an app, newest first (optionally filtered). */
export async function journalOf(
  app: FastifyInstance,
  token: string,
  appId: string,
  filter: Record<string, string> = {},
) {
  const query = new URLSearchParams({ appId, limit: '200', ...filter }).toString();
  const res = await app.inject({ method: 'GET', url: `/api/v1/changes?${query}`, headers: bearer(token) });
  if (res.statusCode !== 200) throw new Error(`journal read failed: ${res.body}`);
  return res.json().changes as any[];
}
