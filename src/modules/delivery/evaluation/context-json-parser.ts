// The JSON body parser of the evaluation routes. Fastify's default parser refused `__proto__` and
// `constructor` keys, which matters where parsed objects are merged into others. Evaluation contexts
// never are: the engine reads only their own properties, and a `__proto__` key stays an ordinary own
// property of what JSON.parse returns, so on these routes it is an attribute like any other (and a
// U+0000, which no column could hold, is an ordinary character of a context nothing stores). The
// rest is the platform's (json-depth.ts, json-values.ts): nesting past the depth limit and numbers
// that are not finite are refused with 400 (VALIDATION_ERROR, or OFREP's INVALID_CONTEXT); invalid
// JSON, an empty body included, is a SyntaxError (VALIDATION_ERROR, or OFREP's PARSE_ERROR). The
// routes' config says the same to the fast lane, which parses their bodies itself.
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../../../platform/json-depth.js';
import type { JsonValueOptions } from '../../../platform/json-values.js';

/** Contexts are read, never stored: a U+0000 in one is an ordinary character. */
const CONTEXT_JSON_VALUES: JsonValueOptions = { prototypeKeys: 'allow', nulCharacters: 'allow' };

/** Call before the scope's routes are declared. */
export function useContextJsonParser(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, jsonValues: CONTEXT_JSON_VALUES };
  });
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string, CONTEXT_JSON_VALUES));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
