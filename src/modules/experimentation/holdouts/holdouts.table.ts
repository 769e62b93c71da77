import type { VersionedRow } from '../../../platform/versioned-row.js';

export interface HoldoutsTables {
  /** definition: JSON { name, description, percentage }. */
  holdouts: VersionedRow;
}
