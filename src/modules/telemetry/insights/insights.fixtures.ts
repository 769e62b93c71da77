// Requests the insights tests share: the two query routes, and a cohort of subjects to query.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { call } from '../../../../test/helpers/fixtures.js';
import { eventId, exposure, HOUR, sendBatch, T0 } from '../ingestion/telemetry.fixtures.js';

export const iso = (t: number) => new Date(t).toISOString();

export function query(
  app: FastifyInstance,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(app, 'POST', '/api/v1/insights/query', { token, payload: body, headers });
}
export function events(
  app: FastifyInstance,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(app, 'POST', '/api/v1/insights/events', { token, payload: body, headers });
}

/** 25 subjects see variant `on`, 5 see `off`, in the hour before T0; outcomes carry revenue. */
export async function cohort(app: FastifyInstance, token: string) {
  const at = T0 - HOUR + 60_000;
  const items = [
    ...Array.from({ length: 25 }, (_, i) =>
      exposure(at, `subject-${i}`, { attributes: { email: `leak-${i}@example.com` }, value: 'served-secret' }),
    ),
    ...Array.from({ length: 5 }, (_, i) => exposure(at, `subject-${i}`, { variant: 'off' })),
    ...Array.from({ length: 25 }, (_, i) => ({
      id: eventId('o'),
      kind: 'outcome',
      timestamp: iso(at + 1000),
      targetingKey: `subject-${i}`,
      flagKey: 'shown',
      variant: 'on',
      metricKey: 'revenue',
      metricValue: i,
    })),
  ];
  const res = await sendBatch(app, token, items.slice(0, 50));
  assert.equal(res.json().accepted, 50, res.body);
  assert.equal((await sendBatch(app, token, items.slice(50))).json().accepted, 5);
}
