// Checks of an experiment definition against the environment: its flag (exists; variants and
// targeting valid for the flag's type), the metric revisions it pins, its holdout and its layer.
// Unknown references are the caller's mistake: 400 with the path of the field.
import { validateExperimentFields, type FlagType } from '@ensign/engine';
import type { Executor } from '../../../db/transaction.js';
import { AppError, validationError, type ErrorDetail } from '../../../platform/errors.js';
import type { HoldoutsService } from '../holdouts/index.js';
import type { LayersService } from '../layers/index.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import type { ConfigState, EnvironmentTarget } from '../../core/config/index.js';
import type { ExperimentDefinition, MetricRef } from './experiments.model.js';

export interface CheckDeps {
  metrics: Pick<MetricsService, 'findRevision'>;
  layers: Pick<LayersService, 'find'>;
  holdouts: Pick<HoldoutsService, 'find'>;
}

const invalid = (details: ErrorDetail[]) =>
  new AppError(400, 'validation_error', details[0]!.message, {
    details,
    resolution: 'Correct the fields listed in details and send the request again.',
  });

/** The flag's type, or a 400 naming /flagKey. */
export function flagTypeOf(state: ConfigState, flagKey: string): FlagType {
  const flag = Object.prototype.hasOwnProperty.call(state.flags, flagKey) ? state.flags[flagKey] : undefined;
  if (!flag)
    throw validationError(`Flag "${flagKey}" does not exist in this environment.`, [
      { path: '/flagKey', message: 'must name an existing flag of the environment' },
    ]);
  return flag.type;
}

/** Variants and targeting against the flag (validated as a whole, so a changed flag re-checks both). */
export function checkServedFields(
  state: ConfigState,
  definition: Pick<ExperimentDefinition, 'flagKey' | 'variants' | 'targeting'>,
): void {
  const type = flagTypeOf(state, definition.flagKey);
  const issues = validateExperimentFields({ type, variants: definition.variants, targeting: definition.targeting });
  if (issues.length > 0) throw invalid(issues.map((i) => ({ path: i.path, message: i.message })));
}

/** Every pinned metric revision exists in the environment; holdout and layer exist. */
export async function checkReferences(
  deps: CheckDeps,
  executor: Executor,
  target: EnvironmentTarget,
  definition: Partial<ExperimentDefinition>,
): Promise<void> {
  const refs: Array<[string, MetricRef]> = [];
  if (definition.primaryMetric) refs.push(['/primaryMetric', definition.primaryMetric]);
  definition.secondaryMetrics?.forEach((m, i) => refs.push([`/secondaryMetrics/${i}`, m]));
  definition.guardrailMetrics?.forEach((m, i) => refs.push([`/guardrailMetrics/${i}`, m]));
  const details: ErrorDetail[] = [];
  for (const [path, ref] of refs) {
    if (!(await deps.metrics.findRevision(executor, target, ref.metricId, ref.revision))) {
      details.push({ path, message: `metric ${ref.metricId} has no revision ${ref.revision} in this environment` });
    }
  }
  if (definition.holdoutId && !(await deps.holdouts.find(executor, target, definition.holdoutId))) {
    details.push({ path: '/holdoutId', message: `holdout ${definition.holdoutId} does not exist in this environment` });
  }
  if (definition.layerId && !(await deps.layers.find(executor, target, definition.layerId))) {
    details.push({ path: '/layerId', message: `layer ${definition.layerId} does not exist in this environment` });
  }
  if (details.length > 0) throw invalid(details);
}

/** Allocation is a percentage with two decimals: a layer range is allocation × 100 whole buckets. */
export function checkAllocation(allocation: number): void {
  if (Math.abs(allocation * 100 - Math.round(allocation * 100)) > 1e-6) {
    throw validationError('allocation has at most two decimals.', [
      { path: '/allocation', message: 'must have at most two decimals' },
    ]);
  }
}

export const bucketsOf = (allocation: number) => Math.round(allocation * 100);
