// Migration 0150 (decision 0047): on SQLite raw events become their own dedup key; on PostgreSQL
// they gain the digest column and the keys table stays. Migration 0151 (decision 0048) keeps the
// watermark and rollups as slot 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDb } from '../../../db/create-db.js';
import { migrateToLatest, migrateUpTo } from '../../../db/migrate.js';
import { validateItem } from './event-validation.js';
import { storeBatch } from './event-store.repository.js';
import type { ValidEvent } from './telemetry.model.js';

const T0 = Date.UTC(2026, 10, 20, 12);

const row = (id: string, fields: Record<string, unknown> = {}) => ({
  env_id: 'env_m',
  id,
  app_id: 'app_m',
  kind: 'exposure',
  ts: T0,
  received_at: T0,
  targeting_key: `u-${id}`,
  flag_key: 'f',
  variant: 'on',
  value: null,
  reason: 'SPLIT',
  experiment_id: null,
  iteration_id: null,
  iteration_revision: null,
  metric_key: null,
  metric_value: null,
  attributes: '{"plan":"pro"}',
  ...fields,
});

test('migrations 0150 and 0151 on SQLite: events keep their fields and gain their digest, keys without an event are dropped, an event without a key is kept, and a stored id stays deduplicated', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-0150-'));
  const handle = createDb(`sqlite://${join(dir, 'ensign.db')}`);
  t.after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const db = handle.db as any;
  await migrateUpTo(db, '0130-finite-numbers');
  const sent = validateItem(
    {
      id: 'a',
      kind: 'exposure',
      timestamp: new Date(T0).toISOString(),
      targetingKey: 'u-a',
      flagKey: 'f',
      variant: 'on',
      reason: 'SPLIT',
      attributes: { plan: 'pro' },
    },
    0,
    T0,
  ) as ValidEvent;
  // 'orphan' has no key row (never written so; the migration keeps it rather than drop it).
  await db
    .insertInto('telemetry_events')
    .values([row('a'), row('b', { ts: T0 + 1 }), row('orphan')])
    .execute();
  await db
    .insertInto('telemetry_event_keys')
    .values([
      { env_id: 'env_m', id: 'a', content_hash: sent.contentHash, ts: T0 },
      { env_id: 'env_m', id: 'b', content_hash: 'digest-b', ts: T0 + 1 },
      // An orphan key (its event deleted by migration 0130): not carried over.
      { env_id: 'env_m', id: 'gone', content_hash: 'digest-gone', ts: T0 },
    ])
    .execute();

  // Migration 0151 carries the watermark and rollups over as slot 0 (decision 0048).
  await db
    .insertInto('telemetry_watermarks')
    .values({ env_id: 'env_m', received_at: T0 + 1, event_id: 'b' })
    .execute();
  await db
    .insertInto('telemetry_rollups')
    .values({
      env_id: 'env_m',
      bucket_start: T0,
      kind: 'exposure',
      flag_key: 'f',
      variant: 'on',
      reason: 'SPLIT',
      experiment_id: '',
      iteration_id: '',
      metric_key: '',
      events: 2,
      metric_count: 0,
      metric_sum: 0,
      metric_sum_sq: 0,
      subjects: Buffer.from([1]),
      updated_at: T0,
    })
    .execute();

  await migrateToLatest(db);

  const watermarks = await db.selectFrom('telemetry_watermarks').selectAll().execute();
  assert.deepEqual(
    watermarks.map((w: any) => [w.env_id, w.slot, Number(w.received_at), w.event_id]),
    [['env_m', 0, T0 + 1, 'b']],
  );
  const rollups = await db.selectFrom('telemetry_rollups').select(['slot', 'events']).execute();
  assert.deepEqual(
    rollups.map((r: any) => [r.slot, Number(r.events)]),
    [[0, 2]],
  );

  const events = await db.selectFrom('telemetry_events').selectAll().orderBy('id').execute();
  assert.deepEqual(
    events.map((e: any) => [e.id, e.content_hash, Number(e.ts), e.attributes]),
    [
      ['a', sent.contentHash, T0, '{"plan":"pro"}'],
      ['b', 'digest-b', T0 + 1, '{"plan":"pro"}'],
      ['orphan', '', T0, '{"plan":"pro"}'],
    ],
  );
  const tables = await sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'telemetry_event%' ORDER BY name`.execute(db);
  assert.deepEqual(
    tables.rows.map((r) => r.name),
    ['telemetry_events'],
  );
  const indexes = await sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'telemetry_events' AND name NOT LIKE 'sqlite_%' ORDER BY name`.execute(
    db,
  );
  assert.deepEqual(
    indexes.rows.map((r) => r.name),
    ['telemetry_events_env_feed', 'telemetry_events_env_received', 'telemetry_events_env_ts'],
  );

  // The same event again is a duplicate, another content under its id a conflict, a new id accepted.
  const item = (id: string) =>
    validateItem(
      { id, kind: 'exposure', timestamp: new Date(T0).toISOString(), targetingKey: 'u-x', flagKey: 'f' },
      0,
      T0,
    ) as ValidEvent;
  const conflicting = item('b');
  const fresh = item('c');
  const outcomes = await storeBatch(db, {
    envId: 'env_m',
    appId: 'app_m',
    receivedAt: T0 + 5,
    events: [sent, conflicting, fresh, item('c'), item('orphan')],
  });
  assert.deepEqual(outcomes, ['duplicate', 'conflict', 'accepted', 'duplicate', 'conflict']);
});
