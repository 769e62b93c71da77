import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../../platform/definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { type IdempotencyService } from '../../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, runIdempotent } from '../../../platform/idempotent-route.js';
import { sourceOf } from '../../core/journal/index.js';
import type { ExportsService } from './exports.service.js';
import {
  CreateDestinationBody,
  DestinationHealthResponse,
  DestinationListQuery,
  DestinationListResponse,
  DestinationResponse,
  DestinationWithSecretResponse,
  RotateSecretBody,
  UpdateDestinationBody,
  BackfillBody,
  BackfillListResponse,
  BackfillParams,
  BackfillResponse,
  DeliveryListQuery,
  DeliveryListResponse,
  DeliveryParams,
  RetryBody,
  RetryResponse,
} from './exports.schemas.js';

export interface ExportsRouteDeps {
  exports: ExportsService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];
// Required on create (400 idempotency_key_required from the handler, so the contract's code is
// answered rather than a schema error): the answer holds a one-time secret a retry must replay.
const CREATE_IDEMPOTENCY_HEADER = IDEMPOTENCY_HEADER;

export const exportsRoutes: FastifyPluginAsyncTypebox<ExportsRouteDeps> = async (app, { exports, idempotency }) => {
  app.post(
    '/api/v1/telemetry/exports',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'createExportDestination',
        summary: 'Create a raw telemetry export destination; the signing secret is shown once',
        security,
        headers: CREATE_IDEMPOTENCY_HEADER,
        body: CreateDestinationBody,
        response: {
          201: DestinationWithSecretResponse,
          ...errorResponses(
            400,
            'export_target_not_allowed',
            'idempotency_key_required',
            401,
            403,
            404,
            'name_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 201,
        keyRequired: true,
        containsSecrets: true,
        work: (trx, principal) => exports.create(trx, principal, request.body, sourceOf(request)),
      });
    },
  );

  app.get(
    '/api/v1/telemetry/exports',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'listExportDestinations',
        summary: 'List the export destinations of an environment',
        security,
        querystring: DestinationListQuery,
        response: { 200: DestinationListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { appId, env, ...options } = request.query;
      return exports.list(principalOf(request), appId, env, options);
    },
  );

  app.get(
    '/api/v1/telemetry/exports/:id',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'getExportDestination',
        summary: 'Read an export destination and its delivery health',
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: DestinationHealthResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => exports.get(principalOf(request), request.query.appId, request.query.env, request.params.id),
  );

  app.patch(
    '/api/v1/telemetry/exports/:id',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'updateExportDestination',
        summary: 'Update an export destination (compare-and-swap on version)',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: UpdateDestinationBody,
        response: {
          200: DestinationResponse,
          ...errorResponses(
            400,
            'export_target_not_allowed',
            401,
            403,
            404,
            'name_conflict',
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 200,
        work: async (trx, principal) => ({
          destination: await exports.update(trx, principal, request.params.id, request.body, sourceOf(request)),
        }),
      }),
  );

  app.post(
    '/api/v1/telemetry/exports/:id/rotate-secret',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'rotateExportSecret',
        summary: 'Replace the signing secret; for 24 hours deliveries are signed with both',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: RotateSecretBody,
        response: {
          200: DestinationWithSecretResponse,
          ...errorResponses(400, 401, 403, 404, 'version_conflict', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 200,
        containsSecrets: true,
        work: (trx, principal) =>
          exports.rotateSecret(trx, principal, request.params.id, request.body, sourceOf(request)),
      });
    },
  );

  app.get(
    '/api/v1/telemetry/exports/:id/deliveries',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'listExportDeliveries',
        summary: 'Deliveries of a destination, newest first',
        security,
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => exports.deliveries(principalOf(request), request.params.id, request.query),
  );

  app.post(
    '/api/v1/telemetry/exports/:id/deliveries/:deliveryId/retry',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'retryExportDelivery',
        summary: 'Schedule a failed or delivered delivery (still retained) again',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: DeliveryParams,
        body: RetryBody,
        response: {
          202: RetryResponse,
          ...errorResponses(400, 401, 403, 404, 'delivery_not_retryable', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { ...request.params, body: request.body },
        statusCode: 202,
        work: async (trx, principal) => ({
          delivery: await exports.retry(
            trx,
            principal,
            request.params.id,
            request.params.deliveryId,
            request.body,
            sourceOf(request),
          ),
        }),
      }),
  );

  app.post(
    '/api/v1/telemetry/exports/:id/backfills',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'backfillExport',
        summary: 'Queue a backfill: re-send the retained events of a window (at most the last 30 days)',
        security,
        params: IdParams,
        body: BackfillBody,
        response: {
          202: BackfillResponse,
          ...errorResponses(400, 'idempotency_key_required', 401, 403, 404, ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 202,
        keyRequired: true,
        bodyField: 'idempotencyKey',
        work: async (trx, principal) => ({
          backfill: await exports.backfill(trx, principal, request.params.id, request.body, sourceOf(request)),
        }),
      });
    },
  );

  app.get(
    '/api/v1/telemetry/exports/:id/backfills',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'listExportBackfills',
        summary: "The destination's backfills with their progress, newest first",
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: BackfillListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      backfills: await exports.listBackfills(principalOf(request), request.params.id, request.query),
    }),
  );

  app.get(
    '/api/v1/telemetry/exports/:id/backfills/:backfillId',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['exports'],
        operationId: 'getExportBackfill',
        summary: 'One backfill: status, deliveries and events so far',
        security,
        params: BackfillParams,
        querystring: EnvQuery,
        response: { 200: BackfillResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      backfill: await exports.getBackfill(
        principalOf(request),
        request.params.id,
        request.params.backfillId,
        request.query,
      ),
    }),
  );
};
