// One catalogue of error codes: the OpenAPI document lists per route the codes it can answer, every
// listed code is in the catalogue with the status it is listed under, docs/errors.md is generated
// from both, and an error's cause reaches the error log. No database: the document is built once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { before, describe, test } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { ERROR_DOCS_FILE, renderErrorDocs } from '../../scripts/error-docs.js';
import { servedOpenApiDocument } from '../../scripts/api-types.js';
import { ERROR_CATALOGUE, ERROR_CODES, isErrorCode } from './error-catalogue.js';
import { registerErrorHandling } from './error-handler.js';
import { ERROR_CODES_EXTENSION } from './error-schemas.js';
import { AppError } from './errors.js';

type Response = Record<string, unknown> & { content?: Record<string, { schema?: { $ref?: string } }> };
type Paths = Record<string, Record<string, { responses?: Record<string, Response> }>>;

describe('the error catalogue', () => {
  let paths: Paths;
  before(async () => {
    paths = (await servedOpenApiDocument()).paths as Paths;
  });

  test('every error response in the contract shape lists its codes, each of the catalogue and of that status', () => {
    let checked = 0;
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const ref = response.content?.['application/json']?.schema?.$ref ?? '';
          if (!/ErrorBody$/.test(ref)) continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const codes = response[ERROR_CODES_EXTENSION];
          assert.ok(Array.isArray(codes) && codes.length > 0, `${where} lists no ${ERROR_CODES_EXTENSION}`);
          for (const code of codes as string[]) {
            assert.ok(isErrorCode(code), `${where}: ${code} is not in the catalogue`);
            assert.equal(
              String(ERROR_CATALOGUE[code].status),
              status,
              `${where}: ${code} has status ${ERROR_CATALOGUE[code].status}`,
            );
          }
          checked++;
        }
      }
    }
    assert.ok(checked > 200, `only ${checked} error responses were found`);
  });

  test('each code has one status, a title, and is lower snake_case', () => {
    for (const code of ERROR_CODES) {
      assert.match(code, /^[a-z][a-z0-9_]*$/);
      assert.ok(ERROR_CATALOGUE[code].title.length > 10, code);
      assert.ok(ERROR_CATALOGUE[code].status >= 400 && ERROR_CATALOGUE[code].status < 600, code);
    }
  });

  test('docs/errors.md is what `npm run generate:error-docs` renders today', () => {
    const committed = readFileSync(ERROR_DOCS_FILE, 'utf8');
    assert.ok(
      committed === renderErrorDocs(paths),
      'docs/errors.md is out of date: run `npm run generate:error-docs` and commit it',
    );
    for (const code of ERROR_CODES) assert.ok(committed.includes(`\`${code}\``), code);
  });
});

describe('an error keeps its cause', () => {
  async function logOf(route: () => never) {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const app = Fastify({ loggerInstance: pino({ level: 'error' }, stream) as FastifyBaseLogger });
    registerErrorHandling(app);
    app.get('/fail', route);
    const res = await app.inject({ method: 'GET', url: '/fail' });
    await app.close();
    return { res, log: lines.join('') };
  }

  test('a 503 with a cause: the answer names neither, the error log has the cause and its stack', async () => {
    const { res, log } = await logOf(() => {
      throw new AppError(503, 'service_unavailable', 'Not now.', {
        cause: new Error('disk quota exceeded on /var/lib/db'),
      });
    });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'service_unavailable');
    assert.ok(!res.body.includes('disk quota'));
    assert.match(log, /disk quota exceeded on \/var\/lib\/db/);
    assert.match(log, /caused by/);
  });

  test('an unexpected fault is a 500 internal_error whose log keeps the original error', async () => {
    const { res, log } = await logOf(() => {
      throw new TypeError('cannot read properties of undefined (reading "flags")');
    });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.code, 'internal_error');
    assert.ok(!res.body.includes('reading'));
    assert.match(log, /cannot read properties of undefined/);
  });
});
