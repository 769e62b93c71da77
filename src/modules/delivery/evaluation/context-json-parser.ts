// The JSON body parser of the evaluation routes. Fastify's default parser (secure-json-parse) scans
// every body for `__proto__` and `constructor` keys, which matters where parsed objects are merged
// into others. Evaluation contexts never are: the engine reads only their own properties and a
// `__proto__` key stays an ordinary own property of what JSON.parse returns. On these routes the
// scan cost more than evaluating, so they parse with JSON.parse. Invalid JSON is a SyntaxError,
// which the error handlers answer with 400 (VALIDATION_ERROR, or OFREP's PARSE_ERROR); nesting past
// the platform's depth limit is refused before parsing, like everywhere else.
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../../../platform/json-depth.js';

export function useContextJsonParser(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
