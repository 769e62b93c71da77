// Export deliveries read their events by id (`eventsByIds`). Each id must be one key lookup on both
// engines: a plan that walks the environment's events made every 100-event delivery cost 59 ms at a
// 50,000-event backlog (a sequential scan of the partitions on PostgreSQL), so a backlog drained
// slower the larger it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import { eventsByIds, eventsByIdsQuery } from './event-feed.js';

const T0 = Date.UTC(2026, 10, 20, 12);
const EVENTS = 30_000;

for (const dialect of dialects) {
  test(`${dialect}: events are read by their ids in (receivedAt, id) order, one key lookup each, never a walk over the environment`, async (t) => {
    const database = await testDatabase(t, dialect);
    const db = database.handle.db;
    // Events e1…e30000 of env_a, received in reverse order of their ids, and one event of env_b.
    const series =
      dialect === 'postgres'
        ? sql`generate_series(1, ${EVENTS}) AS g(n)`
        : sql`(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${EVENTS}) SELECT n FROM s) AS g`;
    const hash = dialect === 'postgres' ? sql`` : sql`, content_hash`;
    await sql`INSERT INTO telemetry_events (env_id, id, app_id, kind, ts, received_at, feed_seq${hash})
      SELECT 'env_a', 'e' || g.n, 'app_a', 'exposure', CAST(${T0} AS BIGINT) + g.n, CAST(${T0 + EVENTS} AS BIGINT) - g.n, 1${dialect === 'postgres' ? sql`` : sql`, 'h'`} FROM ${series}`.execute(
      db,
    );
    await db
      .insertInto('telemetry_events')
      .values({
        env_id: 'env_b',
        id: 'e7',
        app_id: 'app_b',
        kind: 'exposure',
        ts: T0,
        received_at: T0,
        feed_seq: 1,
        ...(dialect === 'postgres' ? {} : { content_hash: 'h' }),
      } as never)
      .execute();
    if (dialect === 'postgres') {
      await sql`INSERT INTO telemetry_event_keys (env_id, id, content_hash, ts) SELECT env_id, id, 'h', ts FROM telemetry_events`.execute(
        db,
      );
      await sql`ANALYZE`.execute(db);
    }

    const read = await eventsByIds(db, 'env_a', ['e5', 'e7', 'e6', 'gone', 'e29999']);
    // Received in reverse id order: e29999 first, then e7, e6, e5; `gone` was never stored.
    assert.deepEqual(
      read.map((e) => e.id),
      ['e29999', 'e7', 'e6', 'e5'],
    );
    assert.equal(read[1]!.receivedAt, new Date(T0 + EVENTS - 7).toISOString());
    assert.deepEqual(
      (await eventsByIds(db, 'env_b', ['e7', 'e8'])).map((e) => e.id),
      ['e7'],
    );
    assert.deepEqual(await eventsByIds(db, 'env_a', []), []);

    const ids = Array.from({ length: 100 }, (_, i) => `e${i * 300 + 1}`);
    const compiled = eventsByIdsQuery(db, 'env_a', ids).compile();
    const explain = dialect === 'postgres' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
    const plan = (await db.executeQuery(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]))).rows
      .map((r) => String((r as Record<string, unknown>)[dialect === 'postgres' ? 'QUERY PLAN' : 'detail']))
      .join('\n');
    if (dialect === 'postgres') {
      assert.doesNotMatch(plan, /Seq Scan/, plan);
      assert.match(plan, /telemetry_event_keys_pk/, plan);
    } else {
      assert.match(plan, /USING PRIMARY KEY \(env_id=\? AND id=\?\)/, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE|telemetry_events_env_received/, plan);
    }
  });
}
