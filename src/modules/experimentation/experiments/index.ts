export { createExperimentsService } from './experiments.service.js';
export { experimentsRoutes } from './experiments.routes.js';
export { createAnalysisInputsService } from './analysis-inputs.service.js';
export { analysisInputsRoutes } from './analysis-inputs.routes.js';
export { createAggregationService, registerAggregationJobs } from './aggregation-runs.service.js';
export { aggregationRoutes } from './aggregation-runs.routes.js';
export type { ExperimentResults, ExperimentResultsSource } from './results.model.js';
export { experimentChangeKinds } from './experiment-change-kinds.js';
export { experimentsReadModel, type ExperimentsReadModel } from './experiments.read-model.js';
