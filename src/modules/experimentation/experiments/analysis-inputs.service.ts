// Inputs of experiment analysis planning (issue 12): baselines of the primary metric, captured from
// raw telemetry or entered by hand, and power analysis over an inline metric or a stored baseline.
// The statistics are descriptive-v1's pure power functions (src/analysis/power.ts).
import type { Kysely } from 'kysely';
import { modelVariance, powerAnalysis, type PowerAnalysisResult } from '../../../analysis/index.js';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { AppError, notFound, validationError } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import { DAY_MS, telemetryReadModel } from '../../telemetry/ingestion/index.js';
import * as baselines from './baselines.repository.js';
import type { ExperimentBaselinesTable } from './baselines.table.js';
import * as repo from './experiments.repository.js';

const { outcomeMoments } = telemetryReadModel;

/** A baseline older than this is reported stale (the traffic it describes may have changed). */
export const BASELINE_STALE_DAYS = 30;
/** The longest window a telemetry baseline scans (raw events are kept shorter than this anyway). */
export const MAX_BASELINE_WINDOW_DAYS = 90;

export interface Baseline {
  id: string;
  version: number;
  metricId: string;
  metricRevision: number;
  window: { from: string; to: string };
  units: number;
  mean: number;
  variance: number;
  source: 'telemetry' | 'manual';
  capturedAt: string;
}

export interface CaptureBaselineInput {
  appId: string;
  env: string;
  metricId: string;
  metricRevision: number;
  window: { from: string; to: string };
  source: 'telemetry' | 'manual';
  values?: { units: number; mean: number; variance: number };
}

export interface PowerAnalysisRequest {
  appId: string;
  env: string;
  experimentId?: string;
  /** `variance` may be left out for a proportion, whose variance is p(1 − p). */
  metric?: { kind: 'count' | 'mean' | 'proportion' | 'ratio'; mean: number; variance?: number };
  baselineId?: string;
  mde: number;
  alpha?: number;
  power?: number;
  variants?: number;
  unitsPerDay: number;
  plannedUnits?: number;
  sequential?: boolean;
}

export interface PowerAnalysisAnswer extends Omit<PowerAnalysisResult, 'readiness' | 'problems'> {
  readiness: 'ready' | 'unsupported' | 'invalid';
  snapshot: {
    source: 'inline' | 'baseline';
    baselineId?: string;
    version?: number;
    capturedAt?: string;
    freshness: { ageDays: number; stale: boolean };
  };
}

export interface AnalysisInputsService {
  captureBaseline(
    trx: Executor,
    principal: Principal,
    experimentId: string,
    input: CaptureBaselineInput,
  ): Promise<Baseline>;
  listBaselines(principal: Principal, appId: string, env: string, experimentId: string): Promise<Baseline[]>;
  powerAnalysis(principal: Principal, input: PowerAnalysisRequest): Promise<PowerAnalysisAnswer>;
}

export interface AnalysisInputsDeps {
  db: Kysely<Database>;
  access: AppAccess;
  metrics: Pick<MetricsService, 'findRevision'>;
  now?: () => number;
}

type BaselineRow = ExperimentBaselinesTable;

const fromRow = (r: BaselineRow): Baseline => ({
  id: r.id,
  version: Number(r.version),
  metricId: r.metric_id,
  metricRevision: Number(r.metric_revision),
  window: { from: r.window_from, to: r.window_to },
  units: Number(r.units),
  mean: Number(r.mean),
  variance: Number(r.variance),
  source: r.source as Baseline['source'],
  capturedAt: r.captured_at,
});

const baselineMismatch = (message: string) =>
  new AppError(400, 'baseline_mismatch', message, {
    resolution: 'Send either the baseline or an inline metric that agrees with it.',
  });

/** Two numbers the same up to rounding in JSON transport. */
const agrees = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
/** A proportion's variance as a client may round p(1 − p): within 0.1 % of it. */
const PROPORTION_VARIANCE_TOLERANCE = 1e-3;

/**
 * The metric of a power analysis as the model takes it. Other metrics need their variance; a
 * proportion's is p(1 − p) of its rate, and a variance sent with one must say the same (a proportion
 * of 0.2 with variance 5 is no proportion): contradictions are refused, never planned with.
 */
function inlineMetricOf(metric: NonNullable<PowerAnalysisRequest['metric']>) {
  if (metric.kind !== 'proportion') {
    if (metric.variance === undefined)
      throw validationError(`/metric/variance is required for a ${metric.kind} metric.`, [
        { path: '/metric/variance', message: 'is required unless kind is proportion' },
      ]);
    return { kind: metric.kind, mean: metric.mean, variance: metric.variance };
  }
  const derived = { kind: metric.kind, mean: metric.mean, variance: 0 };
  derived.variance = modelVariance(derived);
  const validRate = metric.mean > 0 && metric.mean < 1;
  if (
    validRate &&
    metric.variance !== undefined &&
    Math.abs(metric.variance - derived.variance) > PROPORTION_VARIANCE_TOLERANCE * derived.variance
  ) {
    throw validationError(
      `/metric/variance ${metric.variance} contradicts the variance of a proportion with rate ${metric.mean}, p(1 − p) = ${derived.variance}.`,
      [
        {
          path: '/metric/variance',
          message: `must be p(1 − p) = ${derived.variance} for a proportion, or be left out`,
        },
      ],
      'Leave variance out for a proportion (it is derived from the mean), or send p(1 − p).',
    );
  }
  return derived;
}

function instantOf(value: string, path: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw validationError(`${path} is not an RFC 3339 date-time.`, [
      { path, message: 'must be an RFC 3339 date-time' },
    ]);
  return ms;
}

/** A proportion's baseline: a rate in [0, 1] whose variance is p(1 − p) (up to rounding). */
function checkProportionValues(values: { mean: number; variance: number }) {
  if (!(values.mean >= 0 && values.mean <= 1)) {
    throw validationError(`/values/mean ${values.mean} is no rate: a proportion's mean lies in [0, 1].`, [
      { path: '/values/mean', message: 'must lie in [0, 1] for a proportion metric' },
    ]);
  }
  const derived = values.mean * (1 - values.mean);
  if (Math.abs(values.variance - derived) > PROPORTION_VARIANCE_TOLERANCE * derived + 1e-12) {
    throw validationError(
      `/values/variance ${values.variance} contradicts the variance of a proportion with rate ${values.mean}, p(1 − p) = ${derived}.`,
      [{ path: '/values/variance', message: `must be p(1 − p) = ${derived} for a proportion metric` }],
    );
  }
}

export function createAnalysisInputsService(deps: AnalysisInputsDeps): AnalysisInputsService {
  const now = deps.now ?? Date.now;

  async function experimentOf(
    executor: Executor,
    principal: Principal,
    appId: string,
    env: string,
    id: string,
    need: Permission = 'read',
  ) {
    const { env: envRef } = await deps.access.requireEnv(principal, appId, env, need, executor);
    const row = await repo.findExperiment(executor, envRef.id, id);
    if (!row) throw notFound(`Experiment ${id}`);
    return { envId: envRef.id, row };
  }

  function primaryOf(row: repo.ExperimentRow) {
    const primary = row.definition.primaryMetric as
      repo.ExperimentRow['definition']['primaryMetric'] | null | undefined;
    if (!primary)
      throw validationError(`Experiment ${row.id} has no primary metric; baselines describe the primary metric.`, [
        { path: '/primaryMetric', message: 'is required' },
      ]);
    return primary;
  }

  return {
    async captureBaseline(trx, principal, experimentId, input) {
      // Capturing writes a baseline: the same permission as changing the experiment.
      const { row, envId } = await experimentOf(trx, principal, input.appId, input.env, experimentId, 'change');
      const envRef = { id: envId };
      const primary = primaryOf(row);
      if (input.metricId !== primary.metricId || input.metricRevision !== primary.revision) {
        throw validationError(
          `Metric ${input.metricId} revision ${input.metricRevision} is not the primary metric of experiment ${experimentId} (${primary.metricId} revision ${primary.revision}).`,
          [{ path: '/metricId', message: "must be the experiment's primary metric at its pinned revision" }],
        );
      }
      const from = instantOf(input.window.from, '/window/from');
      const to = instantOf(input.window.to, '/window/to');
      if (!(from < to))
        throw validationError('The window is inverted or empty: window.from must be before window.to.', [
          { path: '/window', message: 'from must be before to' },
        ]);
      let values: { units: number; mean: number; variance: number };
      if (input.source === 'manual') {
        if (!input.values)
          throw validationError('A manual baseline needs values { units, mean, variance }.', [
            { path: '/values', message: 'is required when source is manual' },
          ]);
        values = input.values;
        const metric = await deps.metrics.findRevision(
          trx,
          { appId: input.appId, envId: envRef.id, env: input.env },
          primary.metricId,
          primary.revision,
        );
        if (metric?.kind === 'proportion') checkProportionValues(values);
      } else {
        if (input.values)
          throw validationError('values are for manual baselines; a telemetry baseline is computed from events.', [
            { path: '/values', message: 'must be absent when source is telemetry' },
          ]);
        if (to - from > MAX_BASELINE_WINDOW_DAYS * DAY_MS)
          throw validationError(`A telemetry baseline window spans at most ${MAX_BASELINE_WINDOW_DAYS} days.`, [
            { path: '/window', message: 'is too long' },
          ]);
        const metric = await deps.metrics.findRevision(
          trx,
          { appId: input.appId, envId: envRef.id, env: input.env },
          primary.metricId,
          primary.revision,
        );
        if (!metric) throw notFound(`Metric ${primary.metricId} revision ${primary.revision}`);
        if (metric.kind === 'ratio')
          throw validationError(
            'A telemetry baseline of a ratio metric is not supported; enter it as a manual baseline.',
            [{ path: '/source', message: 'must be manual for ratio metrics' }],
          );
        const m = await outcomeMoments(
          trx,
          envRef.id,
          metric.eventMetricKey,
          { from, to },
          metric.kind === 'proportion',
        );
        const mean = m.units > 0 ? m.sum / m.units : 0;
        // Per-unit variance as descriptive-v1 reports it: p(1 − p) for a proportion, else the sample variance.
        const variance =
          metric.kind === 'proportion'
            ? mean * (1 - mean)
            : m.units > 1
              ? Math.max(0, (m.sumSquares - m.sum ** 2 / m.units) / (m.units - 1))
              : 0;
        if (!Number.isFinite(mean) || !Number.isFinite(variance)) {
          // Only values stored before ingestion bounded them (10^15) can overflow these sums.
          throw validationError(
            `The outcome values of ${metric.eventMetricKey} in this window are too large to summarise (their sum or sum of squares is not finite).`,
            [{ path: '/window', message: 'holds outcome values too large to summarise' }],
          );
        }
        values = { units: m.units, mean, variance };
      }
      const record: BaselineRow = {
        id: newId('bsl'),
        env_id: envRef.id,
        experiment_id: experimentId,
        version: (await baselines.lastBaselineVersion(trx, experimentId)) + 1,
        metric_id: primary.metricId,
        metric_revision: primary.revision,
        window_from: new Date(from).toISOString(),
        window_to: new Date(to).toISOString(),
        units: values.units,
        mean: values.mean,
        variance: values.variance,
        source: input.source,
        captured_at: new Date(now()).toISOString(),
      };
      await baselines.insertBaseline(trx, record);
      return fromRow(record);
    },

    async listBaselines(principal, appId, env, experimentId) {
      const { row, envId } = await experimentOf(deps.db, principal, appId, env, experimentId);
      primaryOf(row);
      const rows = await baselines.listBaselines(deps.db, envId, experimentId);
      return rows.map(fromRow);
    },

    async powerAnalysis(principal, input) {
      const { env: envRef } = await deps.access.requireEnv(principal, input.appId, input.env, 'read');
      const experiment = input.experimentId
        ? (await experimentOf(deps.db, principal, input.appId, input.env, input.experimentId)).row
        : undefined;
      let baseline: Baseline | undefined;
      if (input.baselineId) {
        const found = await baselines.findBaseline(deps.db, envRef.id, input.baselineId);
        if (!found) throw notFound(`Baseline ${input.baselineId}`);
        baseline = fromRow(found);
        if (experiment && found.experiment_id !== experiment.id)
          throw baselineMismatch(`Baseline ${input.baselineId} belongs to another experiment than ${experiment.id}.`);
      }
      const inline = input.metric ? inlineMetricOf(input.metric) : undefined;
      if (baseline && inline && !(agrees(inline.mean, baseline.mean) && agrees(inline.variance, baseline.variance))) {
        throw baselineMismatch(
          `The inline metric (mean ${inline.mean}, variance ${inline.variance}) disagrees with baseline ${baseline.id} (mean ${baseline.mean}, variance ${baseline.variance}).`,
        );
      }
      const metric = inline ?? (baseline ? { mean: baseline.mean, variance: baseline.variance } : undefined);
      if (!metric)
        throw validationError('Send an inline metric { kind, mean, variance } or a baselineId.', [
          { path: '/metric', message: 'metric or baselineId is required' },
        ]);
      const analysis = experiment?.definition.analysis;
      const sequential = input.sequential ?? analysis?.sequential ?? false;
      const { problems, ...result } = powerAnalysis({
        metric,
        mde: input.mde,
        alpha: input.alpha ?? analysis?.alpha,
        power: input.power,
        variants: input.variants ?? experiment?.definition.variants.length ?? 2,
        unitsPerDay: input.unitsPerDay,
        plannedUnits: input.plannedUnits,
        sequentialTuning: sequential ? (analysis?.sequentialTuning ?? 5000) : undefined,
      });
      const ratio = input.metric?.kind === 'ratio';
      // Inputs of this request outside the model are its 400; a stored baseline the model cannot
      // plan with (a zero mean, no variance) is the answer's `invalid` readiness.
      const refused = ratio ? [] : problems.filter((p) => inline || !p.path.startsWith('/metric/'));
      if (refused.length > 0) {
        throw validationError(
          `The inputs are outside the power model: ${refused.map((p) => p.message).join('; ')}.`,
          refused,
          'Change the fields listed in details: the model plans a relative effect on a finite, non-zero mean.',
        );
      }
      const ageDays = baseline ? Math.max(0, (now() - Date.parse(baseline.capturedAt)) / DAY_MS) : 0;
      const snapshot: PowerAnalysisAnswer['snapshot'] = baseline
        ? {
            source: 'baseline',
            baselineId: baseline.id,
            version: baseline.version,
            capturedAt: baseline.capturedAt,
            freshness: { ageDays, stale: ageDays > BASELINE_STALE_DAYS },
          }
        : { source: 'inline', freshness: { ageDays: 0, stale: false } };
      // The power formulas are for a per-unit mean; a ratio metric's delta-method plan is not one of them.
      if (ratio) {
        return {
          ...result,
          readiness: 'unsupported',
          reasons: ['power analysis of ratio metrics is not supported by descriptive-v1'],
          requiredUnits: null,
          durationDays: null,
          sensitivity: [],
          atPlannedUnits: undefined,
          snapshot,
        };
      }
      return { ...result, snapshot };
    },
  };
}
