export { evaluationRoutes } from './evaluation.routes.js';
export { createEvaluationSource, type EvaluationSource } from './evaluation-source.js';
export type { EvaluationAudience, EvaluationSet } from './evaluation-set.js';
export { useContextJsonParser } from './context-json-parser.js';
