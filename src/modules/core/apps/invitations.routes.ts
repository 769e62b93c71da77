// Invitations (CONTRACT.md §8): owners list and revoke an app's invitations; the invitee lists
// theirs and accepts or declines. The invite itself is POST /api/v1/apps/{appId}/members
// (members.routes.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { inTransaction } from '../../../db/transaction.js';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { UserPrincipal } from '../../../platform/principal.js';
import { sourceOf } from '../journal/index.js';
import { AppParams } from './apps.schemas.js';
import {
  AcceptInvitationResponse,
  AppInvitationParams,
  InvitationParams,
  ListAppInvitationsResponse,
  ListReceivedInvitationsResponse,
} from './invitations.schemas.js';
import type { InvitationsService } from './invitations.service.js';

export interface InvitationsRouteDeps {
  db: Kysely<Database>;
  invitations: InvitationsService;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };
/** The invitee is a person signed in with a full login token. */
const person = { auth: { allow: ['cli'] as 'cli'[], unscopedCliOnly: true } };

export const invitationsRoutes: FastifyPluginAsyncTypebox<InvitationsRouteDeps> = async (app, { db, invitations }) => {
  app.get(
    '/api/v1/apps/:appId/invitations',
    {
      config: management,
      schema: {
        tags: ['apps'],
        operationId: 'listAppInvitations',
        summary: 'List the pending invitations of an app (owners only)',
        security: [{ bearer: [] }],
        params: AppParams,
        response: { 200: ListAppInvitationsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ invitations: await invitations.listForApp(principalOf(request), request.params.appId) }),
  );

  app.delete(
    '/api/v1/apps/:appId/invitations/:invitationId',
    {
      config: management,
      schema: {
        tags: ['apps'],
        operationId: 'revokeInvitation',
        summary: 'Revoke a pending (or expired) invitation (owners only)',
        security: [{ bearer: [] }],
        params: AppInvitationParams,
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { appId, invitationId } = request.params;
      await inTransaction(db, (trx) =>
        invitations.revoke(trx, principalOf(request), appId, invitationId, sourceOf(request)),
      );
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/invitations',
    {
      config: person,
      schema: {
        tags: ['apps'],
        operationId: 'listMyInvitations',
        summary: 'List the pending invitations addressed to you',
        security: [{ bearer: [] }],
        response: { 200: ListReceivedInvitationsResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ invitations: await invitations.listMine(principalOf(request) as UserPrincipal) }),
  );

  app.post(
    '/api/v1/invitations/:invitationId/accept',
    {
      config: person,
      schema: {
        tags: ['apps'],
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation addressed to you: you become a member with its role',
        security: [{ bearer: [] }],
        params: InvitationParams,
        response: {
          200: AcceptInvitationResponse,
          ...errorResponses(400, 401, 403, 404, 'invitation_expired', 'member_exists'),
        },
      },
    },
    async (request) =>
      inTransaction(db, (trx) =>
        invitations.accept(trx, principalOf(request) as UserPrincipal, request.params.invitationId, sourceOf(request)),
      ),
  );

  app.post(
    '/api/v1/invitations/:invitationId/decline',
    {
      config: person,
      schema: {
        tags: ['apps'],
        operationId: 'declineInvitation',
        summary: 'Decline an invitation addressed to you',
        security: [{ bearer: [] }],
        params: InvitationParams,
        response: { 204: { type: 'null', description: 'Declined' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await inTransaction(db, (trx) =>
        invitations.decline(trx, principalOf(request) as UserPrincipal, request.params.invitationId, sourceOf(request)),
      );
      return reply.code(204).send();
    },
  );
};
