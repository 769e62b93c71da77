// The telemetry writer thread (group-store.ts): its own connection to the SQLite file, one group
// transaction at a time, each answered after its commit.
import { parentPort, workerData } from 'node:worker_threads';
import { createDb } from '../../db/create-db.js';
import { storeBatches } from './telemetry.repository.js';
import type { WriterReply, WriterRequest } from './group-store.js';

const port = parentPort!;
const { db } = createDb((workerData as { databaseUrl: string }).databaseUrl);
let queue = Promise.resolve();

port.on('message', (request: WriterRequest) => {
  queue = queue.then(async () => {
    let reply: WriterReply;
    try {
      reply = { id: request.id, outcomes: await storeBatches(db, request.inputs) };
    } catch (err) {
      reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
});
