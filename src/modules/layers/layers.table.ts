import type { VersionedRow } from '../../platform/versioned-rows.js';

export interface LayersTables {
  /** definition: JSON { name, description, allocations: [{ experimentId, start, end }] }. */
  layers: VersionedRow;
}
