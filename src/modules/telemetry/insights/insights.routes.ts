import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { ManagementPrincipal } from '../../../platform/principal.js';
import {
  AggregateQueryBody,
  AggregateQueryResponse,
  DeadlineHeaders,
  EventQueryBody,
  EventQueryResponse,
  formatResponses,
} from './insights.schemas.js';
import type { InsightsService } from './insights.service.js';
import { renderCsv, renderNdjson, sendFormatted } from './output-formats.js';

export interface InsightsRouteDeps {
  insights: InsightsService;
}

const EVENT_COLUMNS = [
  'id',
  'kind',
  'timestamp',
  'receivedAt',
  'flagKey',
  'variant',
  'reason',
  'experimentId',
  'iterationId',
  'iterationRevision',
  'metricKey',
  'metricValue',
  'sourceAppId',
  'sourceEnv',
];

export const insightsRoutes: FastifyPluginAsyncTypebox<InsightsRouteDeps> = async (app, { insights }) => {
  app.post(
    '/api/v1/insights/query',
    {
      config: { auth: { allow: ['cli', 'admin'] } },
      schema: {
        tags: ['insights'],
        operationId: 'queryInsights',
        summary: 'Aggregate telemetry over hourly rollups, with minimum-cell suppression',
        description:
          'Rows per time bucket (hour or day) and up to 3 dimensions, 1 to 10 measures. A window over 24 hours needs a flagKey or experimentId filter; at most 90 days. Cells under 20 approximate subjects have every measure null. At most 1,000 rows a page (nextCursor, ia1_, valid 15 minutes, bound to the credential and the query); more than 10,000 scanned buckets is 429 query_too_costly.',
        security: [{ bearer: [] }],
        headers: DeadlineHeaders,
        body: AggregateQueryBody,
        response: {
          200: formatResponses(AggregateQueryResponse),
          ...errorResponses(
            400,
            401,
            403,
            404,
            'query_deadline_exceeded',
            'insight_cursor_expired',
            'rate_limited',
            'query_too_costly',
          ),
        },
      },
    },
    async (request, reply) => {
      const { body, rateLimit } = await insights.aggregate(
        principalOf(request) as ManagementPrincipal,
        request.body,
        request.headers['x-service-deadline'],
      );
      const { rows, ...metadata } = body;
      const dims = request.body.dimensions ?? [];
      const columns = ['bucketStart', ...dims, ...request.body.measures];
      if (
        sendFormatted(reply, request.body.format ?? 'json', metadata, rateLimit, {
          csv: () => renderCsv(rows as unknown as Record<string, unknown>[], columns, false),
          ndjson: () => renderNdjson(rows),
        })
      )
        return reply;
      return body;
    },
  );

  app.post(
    '/api/v1/insights/events',
    {
      config: { auth: { allow: ['cli', 'admin'] } },
      schema: {
        tags: ['insights'],
        operationId: 'queryInsightEvents',
        summary: 'Read redacted raw events, newest first',
        description:
          'At most 7 days (inside the 30-day retention), 1 to 100 events a page, newest timestamp first. Events never carry the targeting key, value or attributes. nextCursor (ie1_) is bound to the credential and the query and valid 15 minutes; an unprefixed legacy cursor is accepted once.',
        security: [{ bearer: [] }],
        headers: DeadlineHeaders,
        body: EventQueryBody,
        response: {
          200: formatResponses(EventQueryResponse),
          ...errorResponses(
            400,
            401,
            403,
            404,
            'query_deadline_exceeded',
            'insight_cursor_expired',
            'rate_limited',
            'query_too_costly',
          ),
        },
      },
    },
    async (request, reply) => {
      const { body, rateLimit } = await insights.events(
        principalOf(request) as ManagementPrincipal,
        request.body,
        request.headers['x-service-deadline'],
      );
      const { events, ...metadata } = body;
      if (
        sendFormatted(reply, request.body.format ?? 'json', metadata, rateLimit, {
          csv: () => renderCsv(events as unknown as Record<string, unknown>[], EVENT_COLUMNS, true),
          ndjson: () => renderNdjson(events),
        })
      )
        return reply;
      return body;
    },
  );
};
