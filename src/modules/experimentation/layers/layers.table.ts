import type { VersionedRow } from '../../../platform/versioned-row.js';

export interface LayersTables {
  /** definition: JSON { name, description, allocations: [{ experimentId, start, end }] }. */
  layers: VersionedRow;
}
