import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import { BatchBody, BatchResponse, EventItem } from './telemetry.schemas.js';
import type { TelemetryService } from './telemetry.service.js';

export interface TelemetryRouteDeps {
  telemetry: TelemetryService;
}

/** 1 MiB: 100 events at their largest (1 KiB value, 2 KiB attributes, keys and ids) fit well inside. */
export const BATCH_BODY_LIMIT = 1024 * 1024;

export const telemetryRoutes: FastifyPluginAsyncTypebox<TelemetryRouteDeps> = async (app, { telemetry }) => {
  // Documents the per-item shape in the OpenAPI components (items are validated one by one).
  app.addSchema(EventItem);

  app.post(
    '/api/v1/events/batch',
    {
      bodyLimit: BATCH_BODY_LIMIT,
      // A non-finite number or a prototype key inside an event is that event's permanent error
      // (event-validation.ts); anywhere else in the body it is the batch's 400.
      config: { auth: { allow: ['sdk', 'pub'] }, jsonValues: { itemsAt: 'events' } },
      schema: {
        tags: ['telemetry'],
        operationId: 'ingestEvents',
        summary: 'Send a batch of 1 to 100 feature events',
        description:
          "Each item is validated and stored on its own: the answer lists one result per item in request order (`accepted`, `duplicate`, `permanent-error`, `retryable-error`). Retry only retryable items, with the same ids. A batch that only partly fits the environment's rate answers 429 with the same ordered list and `Retry-After`. Items follow the `TelemetryEvent` schema.",
        security: [{ bearer: [] }],
        body: BatchBody,
        response: {
          200: BatchResponse,
          429: {
            ...BatchResponse,
            description:
              "Part of the batch was over the environment's telemetry rate: admitted items accepted, the others retryable-error rate_limited.",
          },
          ...errorResponses(400, 401, 413, 415, 'service_unavailable'),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request) as EnvironmentPrincipal;
      const { retryAfterSeconds, ...body } = await telemetry.ingest(principal, request.body.events);
      if (retryAfterSeconds !== undefined) reply.code(429).header('retry-after', String(retryAfterSeconds));
      return body;
    },
  );
};
