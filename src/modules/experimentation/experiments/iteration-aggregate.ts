// The aggregate of one experiment iteration (issue 12 "Data"): each subject's variant is that of its
// first exposure (failing that, its first assignment); subjects seen in two variants are excluded and
// counted; outcome events at or after a subject's exposure give its metric values, outcomes in the
// CUPED_LOOKBACK_MS before it give the pre-exposure covariate. Per-subject values live only in this
// function, keyed by a keyed hash of the subject, and leave it as per-variant sufficient statistics.
import { createHmac } from 'node:crypto';
import {
  cupedRatioStatistic,
  cupedStatistic,
  emptyMoments,
  isFiniteStatistic,
  observe,
  ratioStatistic,
  type CupedRatioObservation,
  type Moments,
  type VariantStatistic,
} from '../../../analysis/index.js';
import type { Variant } from '@ensign/engine';
import type { MetricKind } from '../experiment-metrics/index.js';
import type { ExperimentEvent } from '../../telemetry/ingestion/index.js';

/** GrowthBook's default regression-adjustment window: 14 days of pre-exposure data. */
export const CUPED_LOOKBACK_MS = 14 * 86_400_000;
/** Subjects one run holds in memory; past it the run fails with a remediation instead of exhausting memory. */
export const MAX_AGGREGATED_SUBJECTS = 1_000_000;

export interface AggregatedMetric {
  metricId: string;
  kind: MetricKind;
  eventMetricKey: string;
  denominatorMetricKey: string | null;
  winsorizePercentile: number | null;
}

export interface StoredVariant {
  key: string;
  weight: number;
  units: number;
  metrics: Record<string, VariantStatistic>;
}

export interface IterationAggregate {
  variants: StoredVariant[];
  multipleExposures: number;
  diagnostics: string[];
}

export class AggregationTooLarge extends Error {
  override name = 'AggregationTooLarge';
}

/**
 * A value the run cannot aggregate honestly: an outcome value that is not a finite number, or sums
 * that overflow. The run fails with this message (it names the metric) rather than pin an aggregate
 * in which the value would read as 0.
 */
export class AggregationInputInvalid extends Error {
  override name = 'AggregationInputInvalid';
}

/** The metrics reading an event metric key, for messages. */
function metricsNamed(metrics: readonly AggregatedMetric[], key: string): string {
  const ids = metrics.filter((m) => m.eventMetricKey === key || m.denominatorMetricKey === key).map((m) => m.metricId);
  return `${ids.length === 1 ? 'metric' : 'metrics'} ${ids.join(', ')} (outcome key "${key}")`;
}

interface Source {
  variant: string;
  at: number;
  conflict: boolean;
}

interface Subject {
  exposure: Source | null;
  assignment: Source | null;
  /** Per metric key: post-exposure sum and count, pre-exposure sum and count. */
  post: Float64Array;
  postCount: Uint32Array;
  pre: Float64Array;
  preCount: Uint32Array;
}

export interface AggregateInput {
  /** Keys subjects in memory (the server secret); nothing derived from it is stored. */
  secret: string;
  /** Control first. */
  variants: readonly Pick<Variant, 'key' | 'weight'>[];
  metrics: readonly AggregatedMetric[];
  cuped: boolean;
  assignments: AsyncIterable<ExperimentEvent[]>;
  /** Outcome events of the given keys from the given instant (the run picks the window's end). */
  outcomes: (metricKeys: string[], from: number) => AsyncIterable<ExperimentEvent[]>;
  maxSubjects?: number;
}

function note(source: Source | null, e: ExperimentEvent): Source {
  if (!source) return { variant: e.variant!, at: e.ts, conflict: false };
  if (source.variant !== e.variant) source.conflict = true;
  return source;
}

/** The value at percentile p (90..100) of the values, by the nearest-rank method. */
export function percentileCap(values: Float64Array, p: number): number {
  if (values.length === 0) return Infinity;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export async function aggregateIteration(input: AggregateInput): Promise<IterationAggregate> {
  const maxSubjects = input.maxSubjects ?? MAX_AGGREGATED_SUBJECTS;
  const keyed = (subject: string) =>
    createHmac('sha256', input.secret).update(subject).digest('base64url').slice(0, 22);
  const variantKeys = new Set(input.variants.map((v) => v.key));
  const metricKeys = [
    ...new Set(
      input.metrics.flatMap((m) =>
        m.denominatorMetricKey ? [m.eventMetricKey, m.denominatorMetricKey] : [m.eventMetricKey],
      ),
    ),
  ];
  const slot = new Map(metricKeys.map((k, i) => [k, i]));
  const subjects = new Map<string, Subject>();
  let unknownVariants = 0;

  for await (const page of input.assignments) {
    for (const e of page) {
      if (e.variant === null || !variantKeys.has(e.variant)) {
        unknownVariants++;
        continue;
      }
      const key = keyed(e.targetingKey);
      let s = subjects.get(key);
      if (!s) {
        if (subjects.size >= maxSubjects)
          throw new AggregationTooLarge(`the iteration has more than ${maxSubjects} subjects`);
        const n = metricKeys.length;
        s = {
          exposure: null,
          assignment: null,
          post: new Float64Array(n),
          postCount: new Uint32Array(n),
          pre: new Float64Array(n),
          preCount: new Uint32Array(n),
        };
        subjects.set(key, s);
      }
      if (e.kind === 'exposure') s.exposure = note(s.exposure, e);
      else s.assignment = note(s.assignment, e);
    }
  }

  let multipleExposures = 0;
  let earliest = Infinity;
  const included = new Map<string, { subject: Subject; variant: string; at: number }>();
  for (const [key, s] of subjects) {
    const source = s.exposure ?? s.assignment!;
    if (source.conflict) {
      multipleExposures++;
      continue;
    }
    included.set(key, { subject: s, variant: source.variant, at: source.at });
    earliest = Math.min(earliest, source.at);
  }

  if (included.size > 0 && metricKeys.length > 0) {
    const from = input.cuped ? earliest - CUPED_LOOKBACK_MS : earliest;
    for await (const page of input.outcomes(metricKeys, from)) {
      for (const e of page) {
        const member = included.get(keyed(e.targetingKey));
        const i = e.metricKey === null ? undefined : slot.get(e.metricKey);
        if (!member || i === undefined) continue;
        const value = e.metricValue ?? 1;
        if (!Number.isFinite(value)) {
          throw new AggregationInputInvalid(
            `Outcome event ${e.id} of ${metricsNamed(input.metrics, e.metricKey!)} holds a value that is not a finite number.`,
          );
        }
        const s = member.subject;
        if (e.ts >= member.at) {
          s.post[i] += value;
          s.postCount[i]++;
        } else if (input.cuped && e.ts >= member.at - CUPED_LOOKBACK_MS) {
          s.pre[i] += value;
          s.preCount[i]++;
        }
      }
    }
  }

  const members = [...included.values()];
  const variants: StoredVariant[] = input.variants.map((v) => ({
    key: v.key,
    weight: v.weight,
    units: 0,
    metrics: {},
  }));
  const byKey = new Map(variants.map((v) => [v.key, v]));
  for (const m of members) byKey.get(m.variant)!.units++;
  for (const metric of input.metrics) {
    const stats = metricStatistics(
      metric,
      variants.map((v) => v.key),
      members,
      slot,
      input.cuped,
    );
    for (const v of variants) {
      const stat = stats.get(v.key)!;
      if (!isFiniteStatistic(stat)) {
        throw new AggregationInputInvalid(
          `The sums of metric ${metric.metricId} (outcome key "${metric.eventMetricKey}") in variant ${v.key} are not finite: its outcome values are too large to sum.`,
        );
      }
      v.metrics[metric.metricId] = stat;
    }
  }

  const diagnostics: string[] = [];
  if (multipleExposures > 0)
    diagnostics.push(`${multipleExposures} subject(s) were seen in more than one variant and are excluded.`);
  if (unknownVariants > 0)
    diagnostics.push(
      `${unknownVariants} exposure or assignment event(s) named no variant of the experiment and were ignored.`,
    );
  return { variants, multipleExposures, diagnostics };
}

type Member = { subject: Subject; variant: string };

/** Per-variant sufficient statistics of one metric. */
function metricStatistics(
  metric: AggregatedMetric,
  variantKeys: string[],
  members: Member[],
  slot: Map<string, number>,
  cuped: boolean,
): Map<string, VariantStatistic> {
  const i = slot.get(metric.eventMetricKey)!;
  const binary = metric.kind === 'proportion';
  const valueOf = (sum: number, count: number) => (binary ? (count > 0 ? 1 : 0) : sum);
  const post = Float64Array.from(members, (m) => valueOf(m.subject.post[i]!, m.subject.postCount[i]!));
  const pre = Float64Array.from(members, (m) => valueOf(m.subject.pre[i]!, m.subject.preCount[i]!));
  const capped = (values: Float64Array) => {
    if (metric.winsorizePercentile === null || binary) return values;
    const cap = percentileCap(values, metric.winsorizePercentile);
    return values.map((v) => Math.min(v, cap));
  };
  const y = capped(post);
  const x = capped(pre);
  const groups = new Map<string, number[]>();
  members.forEach((m, index) => {
    const list = groups.get(m.variant) ?? [];
    list.push(index);
    groups.set(m.variant, list);
  });
  // Every variant gets a statistic of the metric's shape, an empty one when it has no subject yet.
  const out = new Map<string, VariantStatistic>();
  const all = (key: string) => groups.get(key) ?? [];

  if (metric.kind === 'ratio') {
    const d = slot.get(metric.denominatorMetricKey!)!;
    const den = capped(Float64Array.from(members, (m) => m.subject.post[d]!));
    const denPre = capped(Float64Array.from(members, (m) => m.subject.pre[d]!));
    const statOf = (idx: number[]): VariantStatistic => {
      if (!cuped) return ratioStatistic(idx.map((k) => ({ numerator: y[k]!, denominator: den[k]! })));
      return cupedRatioStatistic(
        idx.map((k): CupedRatioObservation => ({
          numeratorPost: y[k]!,
          denominatorPost: den[k]!,
          numeratorPre: x[k]!,
          denominatorPre: denPre[k]!,
        })),
      );
    };
    for (const key of variantKeys) out.set(key, statOf(all(key)));
  } else {
    const kind = binary ? 'proportion' : 'mean';
    const statOf = (idx: number[]): VariantStatistic => {
      if (cuped)
        return cupedStatistic(
          kind,
          idx.map((k) => ({ post: y[k]!, pre: x[k]! })),
        );
      let m: Moments = emptyMoments();
      for (const k of idx) m = observe(m, y[k]!);
      return { kind, ...m };
    };
    for (const key of variantKeys) out.set(key, statOf(all(key)));
  }
  return out;
}
