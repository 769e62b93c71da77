// Experimentation: experiment metrics, layers, holdouts, experiments (definitions, analysis inputs,
// aggregation runs) and rollouts, over core. It stands above the two planes; what the telemetry
// plane needs of it (aggregates to recompute after an erasure, unfinished rollout plans) it hands
// back for the telemetry composition.
import type { FastifyInstance } from 'fastify';
import type { AppSettings } from '../../config.js';
import type { JobRunner } from '../../jobs/index.js';
import type { Core } from '../core/compose.js';
import { createMetricsService, metricsRoutes } from './experiment-metrics/index.js';
import {
  aggregationRoutes,
  analysisInputsRoutes,
  createAggregationService,
  createAnalysisInputsService,
  createExperimentsService,
  experimentChangeKinds,
  experimentsReadModel,
  experimentsRoutes,
  registerAggregationJobs,
} from './experiments/index.js';
import { createHoldoutsService, holdoutChangeKinds, holdoutsRoutes } from './holdouts/index.js';
import { createLayersService, layerChangeKinds, layersRoutes } from './layers/index.js';
import { createRolloutsService, rolloutChangeKinds, rolloutsRoutes } from './rollouts/index.js';

export interface ExperimentationDeps {
  core: Pick<Core, 'db' | 'apps' | 'journal' | 'idempotency' | 'configStore' | 'mutator' | 'rollbacks'>;
  settings: Pick<AppSettings, 'secret'>;
  jobs: JobRunner;
  now?: () => number;
}

export async function composeExperimentation(app: FastifyInstance, { core, settings, jobs, now }: ExperimentationDeps) {
  const { db, apps: access, journal, idempotency } = core;
  const metrics = createMetricsService({ db, access, journal });
  await app.register(metricsRoutes, { metrics, idempotency });
  const layers = createLayersService({ db, access, journal });
  await app.register(layersRoutes, { layers, idempotency });
  // Holdouts ask which running experiments name a holdout through the experiments read model (no
  // service of experiments needed), and experiments then read holdouts: no cycle.
  const holdouts = createHoldoutsService({
    db,
    access,
    journal,
    usedBy: (executor, target, id) => experimentsReadModel.usingHoldout(executor, target.envId, id),
  });
  await app.register(holdoutsRoutes, { holdouts, idempotency });
  const experiments = createExperimentsService({
    db,
    access,
    journal,
    store: core.configStore,
    mutator: core.mutator,
    metrics,
    layers,
    holdouts,
    now,
  });
  await app.register(experimentsRoutes, { experiments, idempotency });
  await app.register(analysisInputsRoutes, {
    inputs: createAnalysisInputsService({ db, access, metrics, now }),
    idempotency,
  });
  const aggregation = createAggregationService({ db, access, metrics, secret: settings.secret, now });
  registerAggregationJobs(jobs, aggregation);
  await app.register(aggregationRoutes, { aggregation });
  const rollouts = createRolloutsService({
    db,
    access,
    mutator: core.mutator,
    rollbacks: core.rollbacks,
    metrics,
    results: aggregation,
    experiments: experimentsReadModel,
    journal,
    now,
  });
  await app.register(rolloutsRoutes, { rollouts, idempotency });
  return {
    aggregation,
    rollouts,
    // Experiments, layers, holdouts and rollout plans in protected environments go through the
    // authority workflow as change kinds of their own (decision 0029).
    changeKinds: [
      ...experimentChangeKinds(experiments),
      ...layerChangeKinds(layers),
      ...holdoutChangeKinds(holdouts),
      ...rolloutChangeKinds(rollouts),
    ],
  };
}
