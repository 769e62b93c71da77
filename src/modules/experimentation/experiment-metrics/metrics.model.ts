// Metrics as the domain sees them: a key per environment and a history of immutable revisions.
// Experiments pin one revision, so a later revision never changes what an experiment measured.
import type { JournalAuthority } from '../../core/journal/index.js';

export const METRIC_KINDS = ['proportion', 'mean', 'count', 'ratio'] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];
export const METRIC_DIRECTIONS = ['increase', 'decrease'] as const;
export type MetricDirection = (typeof METRIC_DIRECTIONS)[number];

/** The fields one revision fixes. */
export interface MetricFields {
  name: string;
  kind: MetricKind;
  /** The `metricKey` of the outcome events this metric reads. */
  eventMetricKey: string;
  /** Ratio metrics only: the metricKey of the denominator's events. */
  denominatorMetricKey: string | null;
  direction: MetricDirection;
  /** 90..100: values above this percentile are capped; null for none. */
  winsorizePercentile: number | null;
  description: string;
}

export interface MetricRevision extends MetricFields {
  id: string;
  appId: string;
  env: string;
  key: string;
  revision: number;
  createdAt: string;
  createdBy: JournalAuthority;
}
