// Request helpers the advanced configuration tests share: one `prod` environment with its keys, and
// the three routes addressed once.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { bearer } from '../../../../test/helpers/fixtures.js';
import { environmentFixture, type EnvironmentFixture } from '../../../../test/helpers/delivery-fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

export interface AdvancedClient {
  fx: EnvironmentFixture;
  /** GET /api/v1/advanced-config; `query` null sends no appId/env. */
  get(
    token: string,
    options?: { query?: Record<string, string> | null; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** GETs until a 200 at `version` or later: environment keys see a change within a second. */
  until(token: string, version: number, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** GET as the app's admin_ key with the environment named. */
  manage(headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  patchFlag(body: Record<string, unknown>): Promise<LightMyRequestResponse>;
  bulk(body: Record<string, unknown>): Promise<LightMyRequestResponse>;
  impact(
    changes: unknown,
    options?: { token?: string; body?: Record<string, unknown> },
  ): Promise<LightMyRequestResponse>;
  inspect(body: Record<string, unknown>, token?: string): Promise<LightMyRequestResponse>;
  /** Upserts flags through PATCH /api/v1/flags (one version each), asserting 200. */
  put(...flags: Record<string, unknown>[]): Promise<void>;
}

export async function advancedClient(app: FastifyInstance): Promise<AdvancedClient> {
  const fx = await environmentFixture(app);
  const scope = { appId: fx.target.appId, env: fx.target.env };
  const get: AdvancedClient['get'] = (token, options = {}) => {
    const query = options.query === null ? '' : `?${new URLSearchParams(options.query ?? {}).toString()}`;
    return app.inject({
      method: 'GET',
      url: `/api/v1/advanced-config${query}`,
      headers: { ...bearer(token), ...options.headers },
    });
  };
  const send = (method: 'PATCH' | 'POST', url: string, payload: Record<string, unknown>, token = fx.admin) =>
    app.inject({ method, url, headers: bearer(token), payload });
  const patchFlag = (body: Record<string, unknown>) => send('PATCH', '/api/v1/flags', { ...scope, ...body });
  return {
    fx,
    get,
    async until(token, version, headers = {}) {
      let res!: Awaited<ReturnType<typeof get>>;
      await waitFor(
        async () => {
          res = await get(token, { headers });
          assert.ok([200, 304].includes(res.statusCode), res.body);
          return res.statusCode === 200 && res.json().version >= version;
        },
        3000,
        { what: `version ${version} served` },
      );
      return res;
    },
    manage: (headers = {}) => get(fx.admin, { query: scope, headers }),
    patchFlag,
    bulk: (body) => send('PATCH', '/api/v1/flags/bulk', { ...scope, ...body }),
    impact: (changes, options = {}) =>
      send('POST', '/api/v1/advanced-config/impact', { ...scope, changes, ...options.body }, options.token),
    inspect: (body, token) => send('POST', '/api/v1/advanced-config/inspect', { ...scope, ...body }, token),
    async put(...flags) {
      for (const flag of flags) {
        const res = await patchFlag(flag);
        assert.equal(res.statusCode, 200, res.body);
      }
    },
  };
}
