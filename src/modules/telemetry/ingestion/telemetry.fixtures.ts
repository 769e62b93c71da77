// Request helpers the telemetry and insights tests share: an app with environment keys and flags,
// batches of events (the clock is test/helpers/clock.ts).
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { dialects } from '../../../../test/helpers/test-app.js';
import { call, createKey, userWithApp } from '../../../../test/helpers/fixtures.js';

export { T0 } from '../../../../test/helpers/clock.js';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** An app with a client-visible flag `shown` and a hidden flag `hidden` in prod, and its keys. */
export async function telemetryApp(app: FastifyInstance) {
  const s = await userWithApp(app);
  for (const [key, clientEnabled] of [
    ['shown', true],
    ['hidden', false],
  ] as const) {
    const res = await call(app, 'PATCH', '/api/v1/flags', {
      token: s.admin,
      payload: { appId: s.appId, env: 'prod', key, type: 'bool', value: false, clientEnabled },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const pub = await createKey(app, s.admin, { appId: s.appId, env: 'prod', type: 'pub' });
  return { ...s, sdkProd: s.sdk.prod!, pub: pub.token };
}

export function sendBatch(app: FastifyInstance, token: string, events: unknown[], extra: Record<string, unknown> = {}) {
  return call(app, 'POST', '/api/v1/events/batch', { token, payload: { schemaVersion: 1, events, ...extra } });
}

let counter = 0;
export const eventId = (label = 'e') => `${label}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

export function exposure(at: number, subject: string, fields: Record<string, unknown> = {}) {
  return {
    id: eventId('x'),
    kind: 'exposure',
    timestamp: new Date(at).toISOString(),
    targetingKey: subject,
    flagKey: 'shown',
    variant: 'on',
    reason: 'SPLIT',
    ...fields,
  };
}

/** Makes the database refuse every event of `envId`: a batch that cannot be stored, on either engine. */
export async function refuseEventsOf(db: Kysely<Database>, dialect: (typeof dialects)[number], envId: string) {
  if (dialect === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER refuse_env BEFORE INSERT ON telemetry_events WHEN NEW.env_id = '${envId}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION refuse_env() RETURNS trigger AS $$ BEGIN IF NEW.env_id = '${envId}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    )
    .execute(db);
  await sql
    .raw('CREATE TRIGGER refuse_env BEFORE INSERT ON telemetry_events FOR EACH ROW EXECUTE FUNCTION refuse_env()')
    .execute(db);
}
