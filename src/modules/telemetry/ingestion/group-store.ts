// Where ingestion's group transactions run. On PostgreSQL (and an in-memory SQLite database) they
// run in this thread, like every other query. On a SQLite file they run in a thread of their own
// with its own connection (decision 0027): a SQLite write is synchronous CPU work, and ingestion's
// writes are most of an ingesting server's CPU, so in-thread they and the parsing and validation of
// the next requests take turns on one core; in a writer thread they overlap. The main connection
// begins its transactions IMMEDIATE (db/create-db.ts), so the two connections queue for SQLite's
// write lock instead of failing a transaction that read before another connection wrote.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { storeBatches, type StoreBatchInput, type StoreOptions, type StoreOutcome } from './event-store.repository.js';
import { erasedEvents } from './subject-erasure.repository.js';

export interface GroupStore {
  /** Stores a group of batches in one transaction (storeBatches): one outcome list per batch.
   * `lane`: which of the batch writer's concurrent transactions it is (writeLanes). */
  store(inputs: StoreBatchInput[], lane?: number): Promise<StoreOutcome[][]>;
  /** Waits (bounded) for groups being stored, then releases the thread if there is one. */
  close(): Promise<void>;
}

/**
 * The store could not run a group at all (the writer thread timed out, exited or is closed): unlike
 * a storage error, which may be one batch's, this is no batch's fault, and retrying the group's
 * batches one by one (batch-writer.ts) would only fail each of them in turn.
 */
export class GroupStoreUnavailable extends Error {
  override readonly name = 'GroupStoreUnavailable';
}

/** A group the writer thread has not answered within this is failed (the caller answers 503). */
export const GROUP_TIMEOUT_MS = 30_000;
const CLOSE_WAIT_MS = 5_000;

export interface GroupStoreOptions {
  /** The server secret keying erasure tombstones: with it, erased subjects' old events are dropped
   * inside each group's transaction (answered accepted). */
  tombstoneKey?: string;
}

/** What a group transaction drops: the events of erased subjects, when tombstones are keyed. */
export function droppedEvents(tombstoneKey: string | undefined): StoreOptions['dropped'] {
  return tombstoneKey === undefined ? undefined : (trx, inputs) => erasedEvents(trx, tombstoneKey, inputs);
}

export function inlineGroupStore(db: Kysely<Database>, options: GroupStoreOptions = {}): GroupStore {
  const dropped = droppedEvents(options.tombstoneKey);
  return { store: (inputs, lane) => storeBatches(db, inputs, { lane, dropped }), close: async () => undefined };
}

export interface WriterRequest {
  id: number;
  inputs: StoreBatchInput[];
}
export type WriterReply = { id: number; outcomes: StoreOutcome[][] } | { id: number; error: string };

interface Pending {
  resolve: (outcomes: StoreOutcome[][]) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** What the writer thread starts with. */
export interface WriterData {
  databaseUrl: string;
  tombstoneKey: string | undefined;
}

function startWorker(workerData: WriterData): Worker {
  // Under tsx (tests, benchmarks) the sibling is TypeScript: the thread registers tsx before loading it.
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./group-store.worker${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(entry, { workerData });
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * Group transactions in a writer thread on the SQLite file `databaseUrl`. The thread starts with the
 * first group and is started again after it fails; a group it has not answered in GROUP_TIMEOUT_MS
 * is failed, and the thread replaced (its open transaction, if any, is rolled back with it).
 */
export function threadGroupStore(
  databaseUrl: string,
  { tombstoneKey, timeoutMs = GROUP_TIMEOUT_MS }: GroupStoreOptions & { timeoutMs?: number } = {},
): GroupStore {
  let worker: Worker | null = null;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(err: Error) {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      pending.delete(id);
      p.reject(err);
    }
  }

  function retire(w: Worker, err: Error) {
    if (worker !== w) return;
    worker = null;
    failAll(err);
    void w.terminate();
  }

  function current(): Worker {
    if (worker) return worker;
    const w = startWorker({ databaseUrl, tombstoneKey });
    w.on('message', (reply: WriterReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      clearTimeout(p.timer);
      pending.delete(reply.id);
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.outcomes);
      // An idle writer thread does not keep the process alive.
      if (pending.size === 0) w.unref();
    });
    w.on('error', (err) =>
      retire(w, new GroupStoreUnavailable(`the telemetry writer thread failed: ${err.message}`, { cause: err })),
    );
    w.on('exit', (code) => retire(w, new GroupStoreUnavailable(`the telemetry writer thread exited (${code})`)));
    worker = w;
    return w;
  }

  return {
    store(inputs) {
      if (closed) return Promise.reject(new GroupStoreUnavailable('the telemetry writer is closed'));
      const w = current();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => retire(w, new GroupStoreUnavailable('the telemetry writer thread did not answer in time')),
          timeoutMs,
        );
        pending.set(id, { resolve, reject, timer });
        w.ref();
        w.postMessage({ id, inputs } satisfies WriterRequest);
      });
    },
    async close() {
      closed = true;
      const w = worker;
      if (!w) return;
      // Groups already sent are let finish (bounded): their callers are answered from their outcomes.
      const until = Date.now() + CLOSE_WAIT_MS;
      while (pending.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      worker = null;
      failAll(new GroupStoreUnavailable('the telemetry writer closed'));
      await w.terminate();
    },
  };
}
