// A holdout keeps a fixed share of subjects (bucket of its own salt below percentage × 100) out of
// every experiment that names it, so the long-run effect of the experiments can be measured.
import type { JournalAuthority } from '../../core/journal/index.js';

export const MIN_HOLDOUT_PERCENTAGE = 0.01;
export const MAX_HOLDOUT_PERCENTAGE = 50;

export interface HoldoutFields {
  name: string;
  description: string;
  percentage: number;
}

export interface Holdout extends HoldoutFields {
  id: string;
  appId: string;
  env: string;
  key: string;
  version: number;
  salt: string;
  createdAt: string;
  updatedAt: string;
  createdBy: JournalAuthority;
}
