import type { VersionedRow } from '../../platform/versioned-rows.js';

export interface HoldoutsTables {
  /** definition: JSON { name, description, percentage }. */
  holdouts: VersionedRow;
}
