// A layer: 10,000 buckets (hashed with the layer's salt) shared by mutually exclusive experiments,
// each owning a disjoint range of allocation × 100 buckets.
import type { JournalAuthority } from '../../core/journal/index.js';

export const LAYER_BUCKETS = 10_000;

export interface LayerAllocation {
  experimentId: string;
  /** First bucket of the range. */
  start: number;
  /** One past the last bucket. */
  end: number;
}

export interface LayerFields {
  name: string;
  description: string;
  /** Sorted by start; ranges never overlap. */
  allocations: LayerAllocation[];
}

export interface Layer extends LayerFields {
  id: string;
  appId: string;
  env: string;
  key: string;
  version: number;
  salt: string;
  freeBuckets: number;
  createdAt: string;
  updatedAt: string;
  createdBy: JournalAuthority;
}

export const freeBucketsOf = (allocations: readonly LayerAllocation[]) =>
  LAYER_BUCKETS - allocations.reduce((sum, a) => sum + (a.end - a.start), 0);

/**
 * The allocations with `experimentId` owning `buckets` buckets. An experiment already placed keeps
 * its start (its subjects stay) and grows or shrinks at its end; growing needs the buckets right
 * after it to be free. A new one takes the first gap large enough. Null when it does not fit.
 */
export function placeInLayer(
  allocations: readonly LayerAllocation[],
  experimentId: string,
  buckets: number,
): LayerAllocation[] | null {
  const others = allocations.filter((a) => a.experimentId !== experimentId).sort((a, b) => a.start - b.start);
  const own = allocations.find((a) => a.experimentId === experimentId);
  let start: number | null = null;
  if (own) {
    const next = others.find((a) => a.start >= own.end)?.start ?? LAYER_BUCKETS;
    if (own.start + buckets <= next) start = own.start;
  } else {
    let cursor = 0;
    for (const a of [...others, { experimentId: '', start: LAYER_BUCKETS, end: LAYER_BUCKETS }]) {
      if (a.start - cursor >= buckets) {
        start = cursor;
        break;
      }
      cursor = Math.max(cursor, a.end);
    }
  }
  if (start === null) return null;
  return [...others, { experimentId, start, end: start + buckets }].sort((a, b) => a.start - b.start);
}
