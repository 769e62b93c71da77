import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { IdempotencyKeyHeaders, type IdempotencyService } from '../../../platform/idempotency.js';
import { validationError } from '../../../platform/errors.js';
import { nowIso } from '../../../platform/ids.js';
import { sourceOf } from '../journal/index.js';
import type { FlagsService } from './flags.service.js';
import {
  BulkApplyBody,
  BulkApplyResponse,
  DeleteFlagQuery,
  DeleteFlagResponse,
  LegacyBulkBody,
  LegacyBulkResponse,
  ListFlagsQuery,
  ListFlagsResponse,
  PatchFlagBody,
  PatchFlagResponse,
} from './flags.schemas.js';
import { replayedAnswer, runIdempotent } from '../../../platform/idempotent-route.js';

export interface FlagsRouteDeps {
  flags: FlagsService;
  idempotency: IdempotencyService;
}

/** Flag cursors name the last key listed and the search they belong to (a cursor of another q is refused). */
const FLAG_CURSOR_PREFIX = 'fl1_';

function encodeFlagCursor(lastKey: string, q: string | undefined): string {
  return FLAG_CURSOR_PREFIX + Buffer.from(JSON.stringify({ k: lastKey, q: q ?? null })).toString('base64url');
}

function decodeFlagCursor(cursor: string | undefined, q: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  let parsed: { k?: unknown; q?: unknown } | undefined;
  try {
    if (cursor.startsWith(FLAG_CURSOR_PREFIX))
      parsed = JSON.parse(Buffer.from(cursor.slice(FLAG_CURSOR_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.k !== 'string' || (parsed.q !== null && typeof parsed.q !== 'string')) {
    throw validationError(
      'The cursor is not valid.',
      [{ path: 'querystring.cursor', message: 'is not a cursor this route issued' }],
      'Pass the nextCursor of a previous page unchanged.',
    );
  }
  if (parsed.q !== (q ?? null)) {
    throw validationError(
      'The cursor belongs to another search.',
      [{ path: 'querystring.cursor', message: 'was issued for another q' }],
      'Start again without a cursor when the search changes.',
    );
  }
  return parsed.k;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const flagsRoutes: FastifyPluginAsyncTypebox<FlagsRouteDeps> = async (app, { flags, idempotency }) => {
  app.get(
    '/api/v1/flags',
    {
      config: management,
      schema: {
        tags: ['flags'],
        operationId: 'listFlags',
        summary: 'List the flags of an environment with its config version; search and page with q, limit and cursor',
        security: [{ bearer: [] }],
        querystring: ListFlagsQuery,
        response: { 200: ListFlagsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { appId, env, q, limit, cursor } = request.query;
      if (q === undefined && limit === undefined && cursor === undefined)
        return flags.list(principalOf(request), appId, env);
      const after = decodeFlagCursor(cursor, q);
      const { lastKey, ...list } = await flags.list(principalOf(request), appId, env, { q, limit, after });
      return { ...list, nextCursor: lastKey ? encodeFlagCursor(lastKey, q) : null };
    },
  );

  app.patch(
    '/api/v1/flags',
    {
      config: management,
      schema: {
        tags: ['flags'],
        operationId: 'patchFlag',
        summary: 'Create, update, upsert or toggle one flag',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        body: PatchFlagBody,
        response: {
          200: PatchFlagResponse,
          ...errorResponses(
            400,
            'rollout_variants_exclusive',
            401,
            403,
            'approval_required',
            404,
            'version_conflict',
            'flag_exists',
            ...IDEMPOTENCY_ERRORS,
            'flag_quota_exceeded',
          ),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 200,
        work: (trx, principal) => flags.patch(trx, principal, request.body, sourceOf(request)),
      });
    },
  );

  app.delete(
    '/api/v1/flags',
    {
      config: management,
      schema: {
        tags: ['flags'],
        operationId: 'deleteFlag',
        summary: 'Delete one flag',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        querystring: DeleteFlagQuery,
        response: {
          200: DeleteFlagResponse,
          ...errorResponses(400, 401, 403, 'approval_required', 404, 'version_conflict', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: request.query,
        statusCode: 200,
        work: (trx, principal) => flags.remove(trx, principal, request.query, sourceOf(request)),
      });
    },
  );

  app.patch(
    '/api/v1/flags/bulk',
    {
      config: management,
      schema: {
        tags: ['flags'],
        operationId: 'bulkApplyFlags',
        summary: 'Apply flag values, advanced flag fields and privacy settings in one version, all or nothing',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        body: BulkApplyBody,
        response: {
          200: BulkApplyResponse,
          ...errorResponses(
            400,
            'rollout_variants_exclusive',
            401,
            403,
            'approval_required',
            404,
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      // The key is where the request is stored, not part of what it asks: header and body forms match.
      const { idempotencyKey: _key, ...input } = request.body;
      return runIdempotent(idempotency, request, reply, {
        fingerprint: input,
        statusCode: 200,
        bodyField: 'idempotencyKey',
        replayed: replayedAnswer,
        work: async (trx, principal, key) => ({
          ...(await flags.bulkApply(trx, principal, input)),
          replay: { idempotencyKey: key, replayed: false, firstAppliedAt: nowIso() },
        }),
      });
    },
  );

  app.post(
    '/api/v1/flags/bulk',
    {
      config: management,
      schema: {
        tags: ['flags'],
        operationId: 'bulkSetFlagValuesLegacy',
        summary: 'Set the values of existing flags in one version (older form of PATCH /api/v1/flags/bulk)',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        body: LegacyBulkBody,
        response: {
          200: LegacyBulkResponse,
          ...errorResponses(
            400,
            'rollout_variants_exclusive',
            401,
            403,
            'approval_required',
            404,
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 200,
        work: async (trx, principal) => {
          const applied = await flags.bulkApply(trx, principal, request.body);
          return { version: applied.version, updated: applied.updated };
        },
      });
    },
  );
};
