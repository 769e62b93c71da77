// The rules of aggregation runs that need no database: when the scheduler queues a run, what a
// results document says about a pinned aggregate, how diagnostics are bounded and how a recompute
// request is told from a conflicting reuse of its key. The service feeds them what the repositories
// read; aggregation-runs.model.test.ts checks them without storage.
import { createHash } from 'node:crypto';
import { analyzeExperiment, isFiniteStatistic, ANALYSIS_ENGINE_VERSION } from '../../../analysis/index.js';
import type { ExperimentDefinition } from './experiments.model.js';
import type { StoredVariant } from './iteration-aggregate.js';
import type {
  AggregateWatermark,
  AggregationRun,
  AggregationRunCause,
  ExperimentResults,
  GuardrailHealth,
} from './results.model.js';

/** Scheduled runs of one iteration start at most this often. */
export const AGGREGATION_INTERVAL_MS = 60_000;
/** Diagnostics a run or a result carries at most. */
export const MAX_DIAGNOSTICS = 20;

export interface PinnedAggregate {
  variants: StoredVariant[];
  multipleExposures: number;
  primaryMetricId: string | null;
  /** Direction and tolerated degradation of every guardrail, as the run saw them. */
  guardrails: { metricId: string; higherIsBetter: boolean; maxRelativeDegradation: number }[];
}

/** A run as stored: what the API shows of it, and what the service needs to schedule and analyse. */
export interface StoredRun extends AggregationRun {
  envId: string;
  experimentId: string;
  iterationId: string;
  iterationRevision: number;
  queuedAt: string;
  /** Null until the run succeeded, and again once a newer success superseded it. */
  aggregate: PinnedAggregate | null;
  requestHash: string | null;
}

export interface RecomputeRequest {
  appId: string;
  env: string;
  iterationId: string;
  iterationRevision: number;
  analysisEngineVersion: string;
  idempotencyKey: string;
  confirm: boolean;
  priorWatermark?: { receivedAt: number; eventId: string };
}

/** The run as the API shows it. */
export function publicRun(run: StoredRun): AggregationRun {
  const { id, state, cause, watermark, startedAt, finishedAt, diagnostics, remediation } = run;
  return { id, state, cause, watermark, startedAt, finishedAt, diagnostics, remediation };
}

export const bounded = (list: string[]): string[] =>
  list.length <= MAX_DIAGNOSTICS
    ? list
    : [...list.slice(0, MAX_DIAGNOSTICS - 1), `${list.length - MAX_DIAGNOSTICS + 1} more diagnostic(s) omitted.`];

export function requestHashOf(experimentId: string, body: RecomputeRequest): string {
  const { appId, env, iterationId, iterationRevision, analysisEngineVersion, confirm, priorWatermark } = body;
  const canonical = JSON.stringify([
    experimentId,
    appId,
    env,
    iterationId,
    iterationRevision,
    analysisEngineVersion,
    confirm,
    priorWatermark?.receivedAt ?? null,
    priorWatermark?.eventId ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Whether the scheduler queues a run of an iteration now, and why: a new revision (a ramp) or a new
 * iteration always; otherwise new events at most once per interval. A run in flight waits.
 */
export function scheduleDecision(input: {
  newest: Pick<StoredRun, 'state' | 'iterationRevision' | 'watermark' | 'queuedAt'> | undefined;
  iterationRevision: number;
  watermark: AggregateWatermark | null;
  /** Whether the experiment has runs at all (of an earlier iteration when `newest` is undefined). */
  hadRuns: boolean;
  now: number;
}): AggregationRunCause | null {
  const { newest, watermark, now } = input;
  if (newest && (newest.state === 'queued' || newest.state === 'running')) return null;
  const changed = !newest || newest.iterationRevision !== input.iterationRevision;
  const fresh =
    watermark !== null &&
    (newest === undefined || newest.watermark === null || watermark.receivedAt > newest.watermark.receivedAt);
  const due = !newest || Date.parse(newest.queuedAt) <= now - AGGREGATION_INTERVAL_MS;
  if (!changed && !(fresh && due)) return null;
  // A ramp (new revision) or a new iteration after earlier runs of the experiment.
  return changed && (newest !== undefined || input.hadRuns) ? 'iteration_change' : 'schedule';
}

/** The aggregate a run pins: the metrics it could find, with the guardrails' directions as it saw them. */
export function pinnedAggregateOf(
  definition: Pick<ExperimentDefinition, 'primaryMetric' | 'guardrailMetrics'>,
  aggregate: Pick<PinnedAggregate, 'variants' | 'multipleExposures'>,
  found: ReadonlySet<string>,
  higherIsBetter: (metricId: string) => boolean,
): PinnedAggregate {
  return {
    variants: aggregate.variants,
    multipleExposures: aggregate.multipleExposures,
    primaryMetricId:
      definition.primaryMetric && found.has(definition.primaryMetric.metricId)
        ? definition.primaryMetric.metricId
        : null,
    guardrails: definition.guardrailMetrics
      .filter((g) => found.has(g.metricId))
      .map((g) => ({
        metricId: g.metricId,
        higherIsBetter: higherIsBetter(g.metricId),
        maxRelativeDegradation: g.maxRelativeDegradation,
      })),
  };
}

/** The results document of a succeeded run's pinned aggregate, analysed now with descriptive-v1. */
export function resultsOf(
  experiment: { id: string; definition: Pick<ExperimentDefinition, 'analysis'> },
  run: StoredRun & { aggregate: PinnedAggregate; finishedAt: string },
  now: number,
): ExperimentResults {
  const pinned = run.aggregate;
  // An aggregate pinned before runs refused non-finite values may hold null where a sum overflowed:
  // such a metric is left out with a diagnostic, never analysed as zeros.
  const unusable = new Set<string>();
  for (const v of pinned.variants)
    for (const [metricId, stat] of Object.entries(v.metrics)) if (!isFiniteStatistic(stat)) unusable.add(metricId);
  const variants =
    unusable.size === 0
      ? pinned.variants
      : pinned.variants.map((v) => ({
          ...v,
          metrics: Object.fromEntries(Object.entries(v.metrics).filter(([id]) => !unusable.has(id))),
        }));
  const { analysis: settings } = experiment.definition;
  const analysis = analyzeExperiment({
    variants,
    primaryMetricId: pinned.primaryMetricId,
    alpha: settings.alpha,
    sequential: settings.sequential ? { tuning: settings.sequentialTuning } : null,
    minimumUnitsPerVariant: settings.minimumUnitsPerVariant,
    multipleExposures: pinned.multipleExposures,
    guardrails: pinned.guardrails,
  });
  const guardrails: GuardrailHealth[] = analysis.health.guardrails;
  const watermark = run.watermark ?? { receivedAt: 0, eventId: '' };
  const diagnostics = [...run.diagnostics];
  for (const metricId of unusable)
    diagnostics.push(`Metric ${metricId} is left out: its pinned sums are not finite numbers. Recompute the results.`);
  for (const c of analysis.inference.fixedHorizon) {
    if (c.unavailable) diagnostics.push(`No effect for ${c.metricId} in ${c.variant}: ${c.unavailable}.`);
  }
  return {
    experimentId: experiment.id,
    iterationId: run.iterationId,
    iterationRevision: run.iterationRevision,
    analysisEngineVersion: ANALYSIS_ENGINE_VERSION,
    aggregate: { runId: run.id, pinnedAt: run.finishedAt, watermark, variants: analysis.variants },
    inference: analysis.inference,
    analysisDecision: analysis.analysisDecision,
    health: { srm: analysis.health.srm, multipleExposures: analysis.health.multipleExposures, guardrails },
    freshness: {
      computedAt: run.finishedAt,
      lagSeconds: Math.max(0, Math.round((now - (watermark.receivedAt || Date.parse(run.finishedAt))) / 1000)),
    },
    diagnostics: bounded(diagnostics),
  };
}
