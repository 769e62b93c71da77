import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { AuthorityService } from './authority.service.js';
import {
  ApproveBody,
  ApproveResponse,
  ExecuteBody,
  ExecuteResponse,
  ListProposalsQuery,
  ProposalParams,
  proposalSchemas,
  ReadbackBody,
  ReadbackResponse,
  ShowProposalQuery,
  TokenBody,
  TokenResponse,
} from './authority.schemas.js';

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };
const security = [{ bearer: [] }];

/** Registered after every module has added its change kinds: the schemas name them all. */
export const authorityRoutes: FastifyPluginAsyncTypebox<{ authority: AuthorityService }> = async (
  app,
  { authority },
) => {
  const { ProposeBody, ProposeResponse, ListProposalsResponse, ShowProposalResponse } = proposalSchemas(
    authority.changeBodies(),
  );
  app.post(
    '/api/v1/authority/tokens',
    {
      // Every credential type is recognised so anything but an unscoped cli_ is answered 403.
      config: { auth: { allow: ['cli', 'admin', 'sdk', 'pub'] } },
      schema: {
        tags: ['authority'],
        operationId: 'createScopedToken',
        summary: 'Mint a scoped cli_ capability token (login token only); shown once',
        security,
        body: TokenBody,
        response: { 200: TokenResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return authority.mintToken(principalOf(request), request.body);
    },
  );

  app.post(
    '/api/v1/authority/propose',
    {
      config: management,
      schema: {
        tags: ['authority'],
        operationId: 'proposeChange',
        summary: 'Propose a configuration change: validated and previewed now, immutable',
        security,
        body: ProposeBody,
        // A proposal previews its change through the change kind that owns it (flags, experiments, layers,
        // holdouts, rollouts), so it answers what that preview refuses.
        response: {
          200: ProposeResponse,
          ...errorResponses(
            400,
            401,
            403,
            'capability_missing',
            404,
            'version_conflict',
            'flag_exists',
            'plan_conflict',
            'invalid_transition',
            'recommendation_mismatch',
            'flag_quota_exceeded',
          ),
        },
      },
    },
    async (request) => ({
      proposal: await authority.propose(
        principalOf(request),
        request.body as Parameters<AuthorityService['propose']>[1],
      ),
    }),
  );

  app.get(
    '/api/v1/authority/proposals',
    {
      config: management,
      schema: {
        tags: ['authority'],
        operationId: 'listProposals',
        summary: 'Proposals of an environment with approvals, receipt and derived status, newest first',
        security,
        querystring: ListProposalsQuery,
        response: { 200: ListProposalsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ proposals: await authority.list(principalOf(request), request.query) }),
  );

  app.get(
    '/api/v1/authority/proposals/:id',
    {
      config: management,
      schema: {
        tags: ['authority'],
        operationId: 'getProposal',
        summary: 'One proposal with its approvals, receipt and derived status',
        security,
        params: ProposalParams,
        querystring: ShowProposalQuery,
        response: { 200: ShowProposalResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => authority.show(principalOf(request), request.query.appId, request.params.id),
  );

  app.post(
    '/api/v1/authority/approve',
    {
      config: management,
      schema: {
        tags: ['authority'],
        operationId: 'approveProposal',
        summary: 'Approve a proposal (not your own); immutable evidence',
        security,
        body: ApproveBody,
        response: {
          200: ApproveResponse,
          ...errorResponses(
            400,
            401,
            403,
            'capability_missing',
            'self_approval_forbidden',
            404,
            'proposal_closed',
            'proposal_expired',
            'digest_mismatch',
          ),
        },
      },
    },
    async (request) => ({ approval: await authority.approve(principalOf(request), request.body) }),
  );

  app.post(
    '/api/v1/authority/execute',
    {
      config: management,
      schema: {
        tags: ['authority'],
        operationId: 'executeProposal',
        summary: 'Apply an approved proposal as one new version, read back in the same transaction; at most once',
        security,
        body: ExecuteBody,
        response: {
          200: ExecuteResponse,
          ...errorResponses(
            400,
            'rollout_variants_exclusive',
            401,
            403,
            'capability_missing',
            404,
            'approvals_missing',
            'proposal_closed',
            'proposal_expired',
            'stale_proposal',
            'digest_mismatch',
            'readback_mismatch',
            'version_conflict',
            'flag_exists',
            'flag_quota_exceeded',
          ),
        },
      },
    },
    async (request) => ({ receipt: await authority.execute(principalOf(request), request.body) }),
  );

  app.post(
    '/api/v1/authority/readback',
    {
      config: management,
      schema: {
        tags: ['authority'],
        operationId: 'readbackReceipt',
        summary: 'A receipt and what is live now: current and served versions, whether the change is still in effect',
        security,
        body: ReadbackBody,
        response: { 200: ReadbackResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => authority.readback(principalOf(request), request.body),
  );
};
