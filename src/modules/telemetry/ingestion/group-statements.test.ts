// A group of batches is deduplicated and stored in a fixed number of statements, whatever its number
// of batches (event-store.repository.ts), with the outcomes batches stored one after another would
// get: an id is accepted at its first occurrence in the group, per environment, and a later one is
// its duplicate or conflict, also across SQLite's 100-row statements and across environments.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import { storeBatches, type StoreBatchInput } from './event-store.repository.js';
import { droppedEvents } from './group-store.js';
import { validateItem } from './event-validation.js';
import type { ValidEvent } from './telemetry.model.js';

const T0 = Date.UTC(2026, 10, 20, 12);
const item = (id: string, variant = 'on') =>
  validateItem(
    { id, kind: 'exposure', timestamp: new Date(T0).toISOString(), targetingKey: `u-${id}`, flagKey: 'f', variant },
    0,
    T0,
  ) as ValidEvent;
const batch = (envId: string, events: ValidEvent[]): StoreBatchInput => ({
  envId,
  appId: `app_${envId}`,
  receivedAt: T0,
  events,
});
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Counts the statements a Kysely instance runs (every executed query passes transformResult). */
function statementCounter(): KyselyPlugin & { count: number } {
  return {
    count: 0,
    transformQuery: (args) => args.node,
    async transformResult(args) {
      this.count++;
      return args.result;
    },
  };
}

for (const dialect of dialects) {
  describe(`group statements on ${dialect}`, () => {
    test('first occurrence in the group wins, per environment, across batches and statements', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db;
      // Stored before the group: one id it sends again unchanged, one it sends with other content.
      await storeBatches(db, [batch('env_a', [item('old-same'), item('old-changed')])]);

      const first = ids('a', 100).map((id) => item(id));
      const outcomes = await storeBatches(db, [
        batch('env_a', first),
        // 101st and later rows of the group: a second SQLite statement, repeating the first's ids.
        batch('env_a', [
          item('a5'),
          item('a6', 'off'),
          item('b0'),
          item('b0'),
          item('old-same'),
          item('old-changed', 'x'),
        ]),
        // The same ids in another environment are new there.
        batch('env_b', [item('a5'), item('b0', 'off')]),
        batch('env_a', []),
      ]);
      assert.deepEqual(
        outcomes[0],
        first.map(() => 'accepted'),
      );
      assert.deepEqual(outcomes[1], ['duplicate', 'conflict', 'accepted', 'duplicate', 'duplicate', 'conflict']);
      assert.deepEqual(outcomes[2], ['accepted', 'accepted']);
      assert.deepEqual(outcomes[3], []);

      const stored = await db
        .selectFrom('telemetry_events')
        .select(['env_id', 'id', 'variant'])
        .orderBy('env_id')
        .orderBy('id')
        .execute();
      assert.equal(stored.length, 2 + 100 + 1 + 2);
      assert.deepEqual(
        stored.filter((r) => r.env_id === 'env_b').map((r) => [r.id, r.variant]),
        [
          ['a5', 'on'],
          ['b0', 'off'],
        ],
      );
      assert.equal(
        stored.find((r) => r.env_id === 'env_a' && r.id === 'a6')?.variant,
        'on',
        'the first content is kept',
      );
    });

    test('the number of statements does not grow with the batches of a group', async (t) => {
      const database = await testDatabase(t, dialect);
      const counted = async (batches: number, prefix: string) => {
        const counter = statementCounter();
        const db = database.handle.db.withPlugin(counter);
        const inputs = Array.from({ length: batches }, (_, b) =>
          batch(
            'env_c',
            ids(`${prefix}${b}-`, 10).map((id) => item(id)),
          ),
        );
        // With erasure tombstones keyed, as a server stores groups: one probe per environment.
        await storeBatches(db, inputs, { dropped: droppedEvents('a secret') });
        return counter.count;
      };
      // Partitions for the day are made by the first group; both measured groups find them.
      await counted(1, 'warm');
      const one = await counted(1, 'one');
      const sixteen = await counted(16, 'many');
      // SQLite writes rows 100 to a statement: 160 rows are one statement more than 10.
      assert.equal(sixteen, one + (dialect === 'sqlite' ? 1 : 0), `${one} statements for one batch, ${sixteen} for 16`);
    });
  });
}
