export { createExperimentsService, type ExperimentsService, type ExperimentsDeps } from './experiments.service.js';
export { experimentsRoutes, type ExperimentsRouteDeps } from './experiments.routes.js';
export { EXPERIMENT_STATES, TRANSITIONS, type Experiment, type ExperimentState, type Iteration } from './experiments.model.js';
export { createAnalysisInputsService, type AnalysisInputsService, type Baseline } from './analysis-inputs.service.js';
export { analysisInputsRoutes } from './analysis-inputs.routes.js';
export { createAggregationService, registerAggregationJobs, AGGREGATION_JOB, AGGREGATION_SCHEDULE_JOB, type AggregationService } from './aggregation-runs.service.js';
export { aggregationRoutes } from './aggregation-runs.routes.js';
export type { ExperimentResults, ExperimentResultsSource, AggregationRun } from './results.model.js';
export { experimentChangeKinds } from './experiment-change-kinds.js';
