// Group commit for ingestion: batches that arrive while a transaction is being written wait for the
// next one and are stored together (storeBatches). A batch alone is written at once; under load a
// transaction carries every batch that queued behind the previous one, so rollup buckets several
// batches share are merged once and the per-transaction cost is shared. Each caller still gets its
// own outcomes only after the transaction holding its batch has committed: an accepted event is as
// durable when answered as before. With several lanes (PostgreSQL, decision 0060) up to that many
// group transactions run at once, each taking the next group from the one queue.
// A group fails alone only if its batch does: when a group's transaction fails, its batches are
// stored again one by one, each in a transaction of its own, so a batch that cannot be stored (a
// value the database refuses, a tenant's poisoned rollup bucket) fails by itself and the other
// batches of its group, from any app, are stored and answered as if it had not been there.
import { GroupStoreUnavailable, type GroupStore } from './group-store.js';
import type { StoreBatchInput, StoreOutcome } from './event-store.repository.js';

/** Batches one transaction carries at most (100 events each): bounds a transaction's size and time. */
export const MAX_GROUP_BATCHES = 32;

interface Waiting {
  input: StoreBatchInput;
  resolve: (outcomes: StoreOutcome[]) => void;
  reject: (err: unknown) => void;
}

export interface BatchWriter {
  store(input: StoreBatchInput): Promise<StoreOutcome[]>;
}

export interface BatchWriterOptions {
  /** Batches one transaction carries at most (default MAX_GROUP_BATCHES). */
  maxGroup?: number;
  /** Group transactions at once (default 1; writeLanes gives the database's). */
  lanes?: number;
}

export function createBatchWriter(groups: GroupStore, options: BatchWriterOptions = {}): BatchWriter {
  const maxGroup = options.maxGroup ?? MAX_GROUP_BATCHES;
  const lanes = options.lanes ?? 1;
  const queue: Waiting[] = [];
  /** Which lanes are draining the queue now. */
  const busy: boolean[] = new Array<boolean>(lanes).fill(false);

  async function drain(lane: number): Promise<void> {
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, maxGroup);
        try {
          const results = await groups.store(
            group.map((w) => w.input),
            lane,
          );
          group.forEach((w, i) => w.resolve(results[i]!));
        } catch (err) {
          // The whole group rolled back. Alone, or with a store that cannot run anything now, every
          // batch in it is answered retryable; otherwise each is tried again on its own.
          if (group.length === 1 || err instanceof GroupStoreUnavailable) for (const w of group) w.reject(err);
          else await storeOneByOne(group, lane);
        }
      }
    } finally {
      busy[lane] = false;
    }
  }

  async function storeOneByOne(group: Waiting[], lane: number): Promise<void> {
    for (let i = 0; i < group.length; i++) {
      const w = group[i]!;
      try {
        w.resolve((await groups.store([w.input], lane))[0]!);
      } catch (err) {
        w.reject(err);
        if (err instanceof GroupStoreUnavailable) {
          for (const rest of group.slice(i + 1)) rest.reject(err);
          return;
        }
      }
    }
  }

  return {
    store(input) {
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        // An idle lane takes the queue after one turn of the event loop, so requests already read
        // but not yet handled join its transaction (on SQLite a transaction runs without yielding
        // to I/O). A batch that arrives while every lane is busy waits for the next group.
        const lane = busy.indexOf(false);
        if (lane !== -1) {
          busy[lane] = true;
          setImmediate(() => void drain(lane));
        }
      });
    },
  };
}
