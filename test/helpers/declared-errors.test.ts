// The guard every route test runs (declared-errors.ts) sees a code its route does not list, and
// nothing else: listed codes, platform answers and unknown routes pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registerErrorHandling } from '../../src/platform/error-handler.js';
import { ErrorBody, errorResponses } from '../../src/platform/error-schemas.js';
import { AppError } from '../../src/platform/errors.js';
import { watchDeclaredErrors } from './declared-errors.js';

test('an answered code the route does not list is recorded; listed and platform codes are not', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  registerErrorHandling(app);
  app.addSchema(ErrorBody);
  const undeclared = watchDeclaredErrors(app);
  const schema = { response: { 200: { type: 'object' }, ...errorResponses(404, 'flag_exists') } };
  app.get('/things/:id', { schema }, async (request) => {
    const { id } = request.params as { id: string };
    if (id === 'listed') throw new AppError(409, 'flag_exists', 'exists');
    if (id === 'missing') throw new AppError(404, 'not_found', 'missing');
    if (id === 'big') throw new AppError(413, 'payload_too_large', 'too big');
    throw new AppError(409, 'version_conflict', 'conflict');
  });
  await app.ready();
  for (const id of ['listed', 'missing', 'big', 'other']) await app.inject({ method: 'GET', url: `/things/${id}` });
  await app.inject({ method: 'GET', url: '/nowhere' });
  assert.deepEqual(undeclared(), ['GET /things/:id 409 version_conflict']);
});
