// Request validation: bodies are validated strictly (no coercion, unknown fields rejected, never
// silently removed); query strings, params and headers are coerced from their string form.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from './json-depth.js';
import type { JsonValueOptions } from './json-values.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route's JSON bodies may carry besides finite numbers and ordinary keys (json-values.ts). */
    jsonValues?: JsonValueOptions;
  }
}

function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    // Infinity and NaN are no numbers in a body (none reaches here: json-values.ts refuses them
    // first). Not with coercion: Ajv then lets a coerced Infinity (`?limit=1e400`) pass every
    // keyword, where without it `maximum` refuses it; every number of a query or path is bounded.
    strictNumbers: !coerce,
    strict: false,
    keywords: ['kind', 'modifier'],
  });
  addFormats.default(ajv);
  return ajv;
}

/**
 * JSON bodies: an empty body counts as no body (many clients declare JSON on every request, DELETE
 * included, and a route that takes no body must not answer them 400; a route that needs a body
 * still answers 400, from its schema). Bodies nested deeper than MAX_JSON_DEPTH are refused before
 * parsing (json-depth.ts); after it, numbers that are not finite (`1e400`), prototype keys and U+0000 are
 * refused with a 400 naming where they are (json-values.ts), on every route, unless the route's
 * `config.jsonValues` says otherwise. Invalid JSON is a SyntaxError, answered 400 by the error handler.
 */
function registerJsonParser(app: FastifyInstance) {
  // Fastify also reads text/plain, which then failed the route's schema ("/ must be object"):
  // JSON is the only body this API takes, so text is 415 like XML and form bodies.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(text, request.routeOptions.config?.jsonValues));
    } catch (error) {
      done(error as Error, undefined);
    }
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

/**
 * Validators compiled in this process, by what they check (body rules or coercing rules, and the
 * schema's JSON). Compiling ~250 request schemas is most of the cost of building an app; a process
 * that builds many (the tests build one per test file and database) compiles each schema once.
 * Fastify hands the compiler new objects for equal schemas (the headers schema, lower-cased per
 * route), so the key is the schema's text, not its identity. Two Ajv instances serve every app, as
 * they served one app before: a schema with an `$id` (TelemetryEvent) is compiled once per process
 * as it was once per app.
 */
const compiled = new Map<string, CompiledValidator>();
/** The same schema object seen again (most are module constants): found without writing its text. */
const seen = { body: new WeakMap<object, CompiledValidator>(), param: new WeakMap<object, CompiledValidator>() };
let ajvs: { body: ReturnType<typeof makeAjv>; param: ReturnType<typeof makeAjv> } | undefined;

function compileOnce(schema: object, httpPart: RequestPart): CompiledValidator {
  const rules = httpPart === 'body' ? 'body' : 'param';
  let validator = seen[rules].get(schema);
  if (validator) return validator;
  const key = `${rules}:${JSON.stringify(schema)}`;
  validator = compiled.get(key);
  if (!validator) {
    ajvs ??= { body: makeAjv(false), param: makeAjv(true) };
    validator = ajvs[rules].compile(schema);
    compiled.set(key, validator);
  }
  seen[rules].set(schema, validator);
  return validator;
}

export function createValidatorCompiler(): ValidatorCompiler {
  // Compiled on first use (decision 0050) and once per process: a schema compiled for Fastify and
  // for the fast lane (fast-lane.ts) is one function.
  return (schema, httpPart) => compiledOnFirstUse(() => compileOnce(schema, httpPart));
}

/**
 * A validator compiled the first time it runs (decision 0050): compiling every route's schemas at
 * start held generated source and code for hundreds of request parts most processes never see
 * (about a third of the heap after start). The errors of the last call are copied to the wrapper,
 * where Fastify and the fast lane read them.
 */
function compiledOnFirstUse(compile: () => CompiledValidator): CompiledValidator {
  let validator: CompiledValidator | undefined;
  const validate: CompiledValidator = (value) => {
    validator ??= compile();
    const valid = validator(value);
    validate.errors = validator.errors;
    return valid;
  };
  validate.errors = null;
  return validate;
}

/** `compile` as Fastify calls a validator compiler (setValidatorCompiler, the schema controller's factory). */
export function validatorFor(compile: ValidatorCompiler) {
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    compile(schema, httpPart as RequestPart) as never;
}

export function registerValidation(app: FastifyInstance, compile: ValidatorCompiler = createValidatorCompiler()) {
  app.setValidatorCompiler(validatorFor(compile));
  registerJsonParser(app);
}
