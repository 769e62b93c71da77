export { evaluationRoutes, type EvaluationRouteDeps } from './evaluation.routes.js';
export { createEvaluationSource, type EvaluationSource, type SnapshotProvider } from './evaluation-source.js';
export type { EvaluationAudience, EvaluationSet, FlatMetadata } from './evaluation-set.js';
export { EVALUATE_BODY_LIMIT } from './evaluation.schemas.js';
export { useContextJsonParser } from './context-json-parser.js';
