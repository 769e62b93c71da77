// Serialisation under concurrency (issue 3): 50 clients each applying 20 flag changes at once to one
// environment produce exactly versions 1..1000 — no gap, no duplicate — each with its journal entry;
// also with two app instances on two connection pools sharing one PostgreSQL schema.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp } from '../../../app.js';
import type { Database } from '../../../db/database.js';
import {
  buildTestApp,
  createTestDatabase,
  dialects,
  testConfig,
  type TestContext,
} from '../../../../test/helpers/test-app.js';
import { createApp, signUp } from '../../../../test/helpers/fixtures.js';
import { flagsClient } from './flags.test-client.js';

const CLIENTS = 50;
const CHANGES_PER_CLIENT = 20;
const TOTAL = CLIENTS * CHANGES_PER_CLIENT;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Every client runs its changes one after another; the clients run all at once, spread over `apps`. */
async function runClients(apps: FastifyInstance[], token: string, appId: string): Promise<number[]> {
  const versions: number[] = [];
  await Promise.all(
    range(0, CLIENTS - 1).map(async (client) => {
      const flags = flagsClient(apps[client % apps.length]!, token, appId);
      for (let change = 0; change < CHANGES_PER_CLIENT; change++) {
        const res = await flags.patch({ key: `client-${client}`, type: 'number', value: change });
        assert.equal(res.statusCode, 200, res.body);
        versions.push(res.json().version);
      }
    }),
  );
  return versions;
}

async function assertSerialised(db: Kysely<Database>, appId: string, envId: string, answered: number[]) {
  assert.deepEqual(
    [...answered].sort((a, b) => a - b),
    range(1, TOTAL),
    'every answer a distinct version',
  );
  const versions = await db
    .selectFrom('config_versions')
    .select(['version', 'change_id', 'state'])
    .where('env_id', '=', envId)
    .orderBy('version')
    .execute();
  assert.deepEqual(
    versions.map((v) => Number(v.version)),
    range(0, TOTAL),
    'stored versions 0..N without gap or duplicate',
  );
  const journal = await db
    .selectFrom('changes')
    .select(['id', 'before_version', 'after_version'])
    .where('app_id', '=', appId)
    .where('resource_type', '=', 'flag')
    .execute();
  assert.equal(journal.length, TOTAL);
  const byAfter = new Map(journal.map((j) => [Number(j.after_version), j]));
  for (const v of versions.slice(1)) {
    const entry = byAfter.get(Number(v.version));
    assert.ok(entry, `journal entry of version ${v.version}`);
    assert.equal(Number(entry.before_version), Number(v.version) - 1);
    assert.equal(entry.id, v.change_id);
  }
  const last = JSON.parse(versions.at(-1)!.state);
  for (const client of range(0, CLIENTS - 1))
    assert.equal(last.flags[`client-${client}`].value, CHANGES_PER_CLIENT - 1, 'no change lost');
}

async function userWithApp(app: FastifyInstance) {
  const user = await signUp(app);
  const created = await createApp(app, user.token);
  const envId = created.body.environments.find((e: { slug: string }) => e.slug === 'dev').id as string;
  return { token: user.token, appId: created.appId, envId };
}

/** Two instances as two processes would be: two pools on one schema, sharing notifications. */
async function twoInstances(t: TestContext) {
  const database = await createTestDatabase('postgres');
  const handles = [database.handle, database.open()];
  const apps = await Promise.all(
    handles.map((handle) =>
      buildApp({ db: handle.db, dbHandle: handle, notifyChannel: database.pgSchema, config: testConfig() }),
    ),
  );
  t.after(async () => {
    for (const app of apps) await app.close();
    for (const handle of handles) await handle.close();
    await database.drop();
  });
  return { apps, db: database.handle.db };
}

for (const dialect of dialects) {
  describe(`flag changes under concurrency on ${dialect}`, () => {
    test(`${CLIENTS} clients × ${CHANGES_PER_CLIENT} changes give versions 1..${TOTAL} and ${TOTAL} journal entries`, async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const { token, appId, envId } = await userWithApp(app);
      const answered = await runClients([app], token, appId);
      await assertSerialised(database.handle.db, appId, envId, answered);
    });

    if (dialect === 'postgres') {
      test(`two instances sharing one PostgreSQL: ${TOTAL} concurrent changes give versions 1..${TOTAL}`, async (t) => {
        const { apps, db } = await twoInstances(t);
        const { token, appId, envId } = await userWithApp(apps[0]!);
        const answered = await runClients(apps, token, appId);
        await assertSerialised(db, appId, envId, answered);
      });
    }
  });
}
