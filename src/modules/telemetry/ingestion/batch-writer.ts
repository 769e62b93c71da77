// Group commit for ingestion: batches that arrive while a transaction is being written wait for the
// next one and are stored together (storeBatches). A batch alone is written at once; under load a
// transaction carries every batch that queued behind the previous one, so rollup buckets several
// batches share are merged once and the per-transaction cost is shared. Each caller still gets its
// own outcomes only after the transaction holding its batch has committed: an accepted event is as
// durable when answered as before.
import type { GroupStore } from './group-store.js';
import type { StoreBatchInput, StoreOutcome } from './telemetry.repository.js';

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

export function createBatchWriter(groups: GroupStore, maxGroup = MAX_GROUP_BATCHES): BatchWriter {
  const queue: Waiting[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, maxGroup);
        try {
          const results = await groups.store(group.map((w) => w.input));
          group.forEach((w, i) => w.resolve(results[i]!));
        } catch (err) {
          // The whole group rolled back: every batch in it is answered retryable.
          for (const w of group) w.reject(err);
        }
      }
    } finally {
      writing = false;
    }
  }

  return {
    store(input) {
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        // The first batch waits one turn of the event loop, so requests already read but not yet
        // handled join its transaction (on SQLite a transaction runs without yielding to I/O).
        if (!writing) {
          writing = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
