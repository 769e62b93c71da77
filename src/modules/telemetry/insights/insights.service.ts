// The insight queries behind one door: the caller must manage the app, every query is charged to the
// credential's per-minute rate, and each gets a deadline before it starts.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { AppAccess } from '../../../platform/app-access.js';
import type { ManagementPrincipal } from '../../../platform/principal.js';
import { runAggregateQuery } from './aggregate-query.js';
import { runEventQuery } from './event-query.js';
import { createCursorCodec } from './insight-cursor.js';
import type { AggregateQueryBody, EventQueryBody } from './insights.schemas.js';
import { deadlineOf } from './query-deadline.js';
import { createQueryRateLimiter, type RateLimitState } from './query-rate-limit.js';

export interface InsightsServiceDeps {
  db: Kysely<Database>;
  access: AppAccess;
  secret: string;
  now: () => number;
  /** Per credential (ENSIGN_INSIGHTS_QUERIES_PER_MINUTE). */
  queriesPerMinute: number;
}

export type AggregateResult = Awaited<ReturnType<typeof runAggregateQuery>>;
export type EventResult = Awaited<ReturnType<typeof runEventQuery>>;

export interface InsightsService {
  aggregate(
    principal: ManagementPrincipal,
    body: AggregateQueryBody,
    headerDeadline?: number,
  ): Promise<{ body: AggregateResult; rateLimit: RateLimitState }>;
  events(
    principal: ManagementPrincipal,
    body: EventQueryBody,
    headerDeadline?: number,
  ): Promise<{ body: EventResult; rateLimit: RateLimitState }>;
}

/** Cursors and rate limits follow the credential itself: one login token, or one admin key. */
const credentialOf = (p: ManagementPrincipal) => (p.type === 'cli' ? `tok:${p.tokenId}` : `key:${p.keyId}`);

export function createInsightsService(deps: InsightsServiceDeps): InsightsService {
  const codec = createCursorCodec(deps.secret);
  const limiter = createQueryRateLimiter(deps.queriesPerMinute, deps.now);

  async function contextFor(
    principal: ManagementPrincipal,
    body: { appId: string; env: string; deadlineAt?: number },
    headerDeadline?: number,
  ) {
    const deadline = deadlineOf(deps.now, body.deadlineAt, headerDeadline);
    const { app, env } = await deps.access.requireEnv(principal, body.appId, body.env, 'read');
    const credential = credentialOf(principal);
    const rateLimit = limiter.charge(credential);
    return {
      ctx: { db: deps.db, codec, credential, envId: env.id, deadline, rateLimit },
      source: { appId: app.id, env: env.slug },
    };
  }

  return {
    async aggregate(principal, body, headerDeadline) {
      const { ctx } = await contextFor(principal, body, headerDeadline);
      return { body: await runAggregateQuery(ctx, body), rateLimit: ctx.rateLimit };
    },
    async events(principal, body, headerDeadline) {
      const { ctx, source } = await contextFor(principal, body, headerDeadline);
      return { body: await runEventQuery(ctx, body, source), rateLimit: ctx.rateLimit };
    },
  };
}
