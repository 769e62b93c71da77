// The four routes of a definition guarded by a `version` with dry runs (layers, holdouts): list and
// read with appId/env, create (201, or 200 { preview } with dryRun) and patch with version CAS
// (200 { <field> }, or { preview }). One registration, so both kinds answer the same way.
import type { FastifyInstance } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { Executor } from '../db/transaction.js';
import { principalOf } from './authenticate.js';
import { EnvQuery, IdParams } from './definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS, type ErrorEntry } from './error-schemas.js';
import type { IdempotencyService } from './idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, previewOrRun } from './idempotent-route.js';
import type { Principal } from './principal.js';

type Input = { appId: string; env: string; dryRun?: boolean } & Record<string, unknown>;

export interface DefinitionService<T, Source> {
  list(principal: Principal, appId: string, env: string): Promise<T[]>;
  get(principal: Principal, appId: string, env: string, id: string): Promise<T>;
  /** `trx` null: a dry run. */
  create(trx: Executor | null, principal: Principal, input: never, source: Source): Promise<T>;
  patch(trx: Executor | null, principal: Principal, id: string, input: never, source: Source): Promise<T>;
}

/** `Source` is the journal's source type, which the platform does not know. */
export interface DefinitionRoutesSpec<T, Source> {
  /** Path segment and list field: `layers`. */
  plural: string;
  /** Record field: `layer`; operation ids are built from it (createLayer, …). */
  singular: string;
  summaries: { list: string; create: string; get: string; patch: string };
  schemas: {
    createBody: TSchema;
    patchBody: TSchema;
    record: TSchema;
    preview: TSchema;
    list: TSchema;
    patched: TSchema;
  };
  service: DefinitionService<T, Source>;
  idempotency: IdempotencyService;
  sourceOf: (request: import('fastify').FastifyRequest) => Source;
  /** The codes of the module's own rules that create and update can answer (besides the platform's). */
  errors: { create: ErrorEntry[]; update: ErrorEntry[] };
}

export function registerDefinitionRoutes<T, Source>(app: FastifyInstance, spec: DefinitionRoutesSpec<T, Source>): void {
  const { plural, singular, service, idempotency, schemas, summaries } = spec;
  const Name = singular[0]!.toUpperCase() + singular.slice(1);
  const tags = [plural];
  const security = [{ bearer: [] }];
  const path = `/api/v1/${plural}`;

  app.get(
    path,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: `list${Name}s`,
        summary: summaries.list,
        security,
        querystring: EnvQuery,
        response: { 200: schemas.list, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query as { appId: string; env: string };
      return { [plural]: await service.list(principalOf(request), q.appId, q.env) };
    },
  );

  app.post(
    path,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: `create${Name}`,
        summary: summaries.create,
        security,
        headers: IDEMPOTENCY_HEADER,
        body: schemas.createBody,
        response: {
          200: schemas.preview,
          201: schemas.record,
          ...errorResponses(400, 401, 403, 404, ...spec.errors.create, ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { dryRun, ...input } = request.body as Input;
      const source = spec.sourceOf(request);
      return previewOrRun(
        idempotency,
        request,
        reply,
        dryRun,
        async (principal) => ({ ...(await service.create(null, principal, input as never, source)), id: null }),
        {
          fingerprint: input,
          statusCode: 201,
          work: async (trx, principal) => ({
            [singular]: await service.create(trx, principal, input as never, source),
          }),
        },
      );
    },
  );

  app.get(
    `${path}/:id`,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: `get${Name}`,
        summary: summaries.get,
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: schemas.record, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query as { appId: string; env: string };
      return {
        [singular]: await service.get(principalOf(request), q.appId, q.env, (request.params as { id: string }).id),
      };
    },
  );

  app.patch(
    `${path}/:id`,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: `patch${Name}`,
        summary: summaries.patch,
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: schemas.patchBody,
        response: {
          200: schemas.patched,
          ...errorResponses(400, 401, 403, 404, ...spec.errors.update, ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { dryRun, ...input } = request.body as Input;
      const { id } = request.params as { id: string };
      const source = spec.sourceOf(request);
      return previewOrRun(
        idempotency,
        request,
        reply,
        dryRun,
        (principal) => service.patch(null, principal, id, input as never, source),
        {
          fingerprint: { id, input },
          statusCode: 200,
          work: async (trx, principal) => ({
            [singular]: await service.patch(trx, principal, id, input as never, source),
          }),
        },
      );
    },
  );
}
