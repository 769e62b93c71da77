// Request validation: bodies are validated strictly (no coercion, unknown fields rejected, never
// silently removed); query strings, params and headers are coerced from their string form.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

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

export function registerValidation(app: FastifyInstance) {
  const bodyAjv = makeAjv(false);
  const paramAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : paramAjv).compile(schema) as never);
}
