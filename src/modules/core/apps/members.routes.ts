import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdempotencyKeyHeaders } from '../../../platform/idempotency-http.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { inTransaction } from '../../../db/transaction.js';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { type IdempotencyService } from '../../../platform/idempotency.js';
import { sourceOf } from '../journal/index.js';
import type { InvitationsService } from './invitations.service.js';
import { InvitationResponse } from './invitations.schemas.js';
import type { MembersService } from './members.service.js';
import {
  AddMemberBody,
  AppParams,
  ListMembersResponse,
  MemberParams,
  MemberResponse,
  SetRoleBody,
} from './apps.schemas.js';
import { runIdempotent } from '../../../platform/idempotent-route.js';

export interface MembersRouteDeps {
  db: Kysely<Database>;
  members: MembersService;
  invitations: InvitationsService;
  idempotency: IdempotencyService;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const membersRoutes: FastifyPluginAsyncTypebox<MembersRouteDeps> = async (
  app,
  { db, members, invitations, idempotency },
) => {
  app.get(
    '/api/v1/apps/:appId/members',
    {
      config: management,
      schema: {
        tags: ['apps'],
        operationId: 'listMembers',
        summary: 'List the members of an app and their roles',
        security: [{ bearer: [] }],
        params: AppParams,
        response: { 200: ListMembersResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ members: await members.list(principalOf(request), request.params.appId) }),
  );

  app.post(
    '/api/v1/apps/:appId/members',
    {
      config: management,
      schema: {
        tags: ['apps'],
        operationId: 'addMember',
        summary: 'Invite an address to an app with a role (owners only); membership starts when its owner accepts',
        description:
          'Answers the same 202 whether or not anyone has signed up with the address. Inviting an address with a pending invitation renews it (same id, the new role, 7 more days); inviting a member is 409 member_exists.',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        params: AppParams,
        body: AddMemberBody,
        response: {
          202: InvitationResponse,
          ...errorResponses(
            400,
            401,
            403,
            'capability_missing',
            404,
            'invitation_exists',
            'member_exists',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const { appId } = request.params;
      return runIdempotent(idempotency, request, reply, {
        fingerprint: { appId, body: request.body },
        statusCode: 202,
        work: async (trx, principal) => ({
          invitation: await invitations.invite(trx, principal, appId, request.body, sourceOf(request)),
        }),
      });
    },
  );

  app.patch(
    '/api/v1/apps/:appId/members/:userId',
    {
      config: management,
      schema: {
        tags: ['apps'],
        operationId: 'setMemberRole',
        summary: 'Change the role of a member (owners only; the last owner stays)',
        security: [{ bearer: [] }],
        params: MemberParams,
        body: SetRoleBody,
        response: { 200: MemberResponse, ...errorResponses(400, 401, 403, 'capability_missing', 404, 'last_owner') },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { appId, userId } = request.params;
      return {
        member: await inTransaction(db, (trx) =>
          members.setRole(trx, principal, appId, userId, request.body.role, sourceOf(request)),
        ),
      };
    },
  );

  app.delete(
    '/api/v1/apps/:appId/members/:userId',
    {
      config: management,
      schema: {
        tags: ['apps'],
        operationId: 'removeMember',
        summary: 'Remove a member from an app (owners only; the last owner stays)',
        security: [{ bearer: [] }],
        params: MemberParams,
        response: {
          204: { type: 'null', description: 'Removed' },
          ...errorResponses(400, 401, 403, 'capability_missing', 404, 'last_owner'),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { appId, userId } = request.params;
      await inTransaction(db, (trx) => members.remove(trx, principal, appId, userId, sourceOf(request)));
      return reply.code(204).send();
    },
  );
};
