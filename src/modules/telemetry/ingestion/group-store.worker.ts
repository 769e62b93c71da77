// The telemetry writer thread (group-store.ts): its own connection to the SQLite file, one group
// transaction at a time, each answered after its commit.
import { parentPort, workerData } from 'node:worker_threads';
import { sql } from 'kysely';
import { createDb } from '../../../db/create-db.js';
import { storeBatches } from './event-store.repository.js';
import { droppedEvents, type WriterData, type WriterReply, type WriterRequest } from './group-store.js';

const port = parentPort!;
const data = workerData as WriterData;
const { db } = createDb(data.databaseUrl);
const dropped = droppedEvents(data.tombstoneKey);
// A long transaction of the main connection (an erasure's rollup rebuild) delays groups rather
// than failing them: the thread waits up to 20 s for the write lock, inside the caller's 30 s.
const ready = sql`PRAGMA busy_timeout = 20000`.execute(db).catch(() => undefined);
let queue: Promise<unknown> = ready;

port.on('message', (request: WriterRequest) => {
  queue = queue.then(async () => {
    let reply: WriterReply;
    try {
      reply = { id: request.id, outcomes: await storeBatches(db, request.inputs, { dropped }) };
    } catch (err) {
      reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
});
