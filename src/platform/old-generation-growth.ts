// Bounds how far V8 lets the old generation grow past what the last full collection left alive
// (decision 0070). For a heap as small as a server's (25–55 MiB live), V8 picks a growth factor of
// up to 4 from how fast its collections are, so the old generation can hold three times its live
// data in promoted garbage before the next full collection: loading a hundred environments' documents
// in a burst took resident memory from 149 to 186 MiB in a third of a second. With the factor at 2
// the same run peaks at 155–162 MiB. At 1.5 it peaked lower still (153–155 MiB), but ingestion on
// PostgreSQL then spent a quarter more CPU per event in collections; at 2 it does not.
import { setFlagsFromString } from 'node:v8';
import { setByOperator } from './startup-heap.js';

const FLAG = '--heap-growing-percent';
/** The next full collection starts once the old generation is twice as large as its live data. */
export const OLD_GENERATION_GROWTH_PERCENT = 100;

/** Sets the growth for the whole process (worker threads included), unless an operator set it. */
export function boundOldGenerationGrowth(): void {
  if (setByOperator(FLAG)) return;
  setFlagsFromString(`${FLAG}=${OLD_GENERATION_GROWTH_PERCENT}`);
}
