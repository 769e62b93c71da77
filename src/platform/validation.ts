// Request validation: bodies are validated strictly (no coercion, unknown fields rejected, never
// silently removed); query strings, params and headers are coerced from their string form.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { exceedsJsonDepth, tooDeepError } from './json-depth.js';

function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
    keywords: ['kind', 'modifier'],
  });
  addFormats.default(ajv);
  return ajv;
}

/**
 * JSON bodies are parsed as Fastify does (prototype and constructor poisoning refused), except that an
 * empty body counts as no body: many clients declare JSON on every request, DELETE included, and a
 * route that takes no body must not answer them 400. A route that needs a body still answers 400,
 * from its schema. Bodies nested deeper than MAX_JSON_DEPTH are refused before parsing (json-depth.ts).
 */
function registerJsonParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Fastify also reads text/plain, which then failed the route's schema ("/ must be object"):
  // JSON is the only body this API takes, so text is 415 like XML and form bodies.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    if (exceedsJsonDepth(text)) return done(tooDeepError(), undefined);
    return parseJson(request, text, done);
  });
}

export type RequestPart = 'body' | 'params' | 'querystring' | 'headers';

/** A compiled schema: Ajv's validate function, with the errors of its last call. */
export interface CompiledValidator {
  (value: unknown): boolean;
  errors?: unknown[] | null;
}

/** Compiles a request part's schema with the rules above (what Fastify's routes use). */
export type ValidatorCompiler = (schema: object, httpPart: RequestPart) => CompiledValidator;

/**
 * The error Fastify raises when `validator` has just refused a request part, for the fast lane
 * (fast-lane.ts), which validates with the same compiled functions: the error handlers render both
 * alike, from `validation` and `validationContext` (error-handler.ts).
 */
export function validationFailure(validator: CompiledValidator, part: RequestPart): Error {
  return Object.assign(new Error(`${part} is invalid`), {
    statusCode: 400,
    code: 'FST_ERR_VALIDATION',
    validation: validator.errors ?? [],
    validationContext: part,
  });
}

export function createValidatorCompiler(): ValidatorCompiler {
  const bodyAjv = makeAjv(false);
  const paramAjv = makeAjv(true);
  // Ajv keeps what it compiled per schema object: a schema compiled for Fastify and for the fast
  // lane (fast-lane.ts) is one function.
  return (schema, httpPart) => (httpPart === 'body' ? bodyAjv : paramAjv).compile(schema);
}

export function registerValidation(app: FastifyInstance, compile: ValidatorCompiler = createValidatorCompiler()) {
  app.setValidatorCompiler(({ schema, httpPart }) => compile(schema, httpPart as RequestPart) as never);
  registerJsonParser(app);
}
