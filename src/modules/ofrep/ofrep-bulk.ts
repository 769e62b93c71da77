// The bulk answer: every flag the key may see, evaluated for one context, plus the event stream that
// tells the client when to ask again. Its ETag is a keyed digest of these very bytes and the key id,
// so it changes exactly when this key's answer for this context changes; a version number would
// not do, since one client keeps its tag while its context attributes change.
//
// The evaluated part is kept in a bounded, process-wide LRU keyed by environment, version, audience
// and context: web clients poll with the same context, and a change makes every connected client
// refetch at once, so most bulk requests repeat one seen moments ago. A hit costs a lookup and a
// small HMAC instead of evaluating every flag and digesting the whole answer.
import { createHash } from 'node:crypto';
import type { EvaluationContext } from '../../engine/index.js';
import type { EnvironmentPrincipal } from '../../platform/principal.js';
import { entityTag } from '../delivery/index.js';
import type { EvaluationAudience, EvaluationSet } from '../evaluation/index.js';
import { ofrepAnswer } from './ofrep-results.js';
import { INACTIVITY_DELAY_SEC } from './ofrep.schemas.js';
import type { StreamTokens } from './stream-token.js';

export const EVENTS_PATH = '/api/ofrep/v1/events';
/** Process-wide budget of cached answers (their strings and keys, at two bytes a character). */
const CACHE_BYTES = 32 * 1024 * 1024;
/** Larger contexts are evaluated every time: they are rare and would crowd the cache. */
const MAX_CACHED_CONTEXT = 4096;

interface Evaluated {
  /** `{"flags":[…]` — the answer up to its event streams. */
  readonly json: string;
  readonly digest: string;
}

export interface BulkAnswer {
  body: string;
  etag: string;
}

/** `{"flags":[…]` for one context. `set.flags` must be compiled (the caller answers 500 otherwise). */
export function flagsJson(set: EvaluationSet, audience: EvaluationAudience, context: EvaluationContext): string {
  const flags = set.flags!;
  const keys = set.keysFor(audience);
  let items = '';
  for (let i = 0; i < keys.length; i++) {
    items += (i === 0 ? '' : ',') + ofrepAnswer(set, flags.evaluate(keys[i]!, context), audience).json;
  }
  return `{"flags":[${items}]`;
}

/** `,"eventStreams":[…]}` with a stream token of the key. */
export function eventStreamsJson(token: string): string {
  const requestUri = `${EVENTS_PATH}?token=${encodeURIComponent(token)}`;
  return `,"eventStreams":${JSON.stringify([{ type: 'sse', endpoint: { requestUri }, inactivityDelaySec: INACTIVITY_DELAY_SEC }])}}`;
}

export function createBulkAnswers(tagKey: Buffer, tokens: StreamTokens) {
  const evaluated = new Map<string, Evaluated>();
  let cachedBytes = 0;
  /** Per key: its stream part, reissued once a day (tokens are issued per UTC day). */
  const streams = new Map<string, { day: number; json: string }>();

  function remember(key: string, entry: Evaluated) {
    evaluated.set(key, entry);
    cachedBytes += (entry.json.length + key.length) * 2;
    while (cachedBytes > CACHE_BYTES) {
      const [oldest, old] = evaluated.entries().next().value as [string, Evaluated];
      evaluated.delete(oldest);
      cachedBytes -= (old.json.length + oldest.length) * 2;
    }
  }

  function evaluate(set: EvaluationSet, audience: EvaluationAudience, envId: string, context: EvaluationContext): Evaluated {
    const contextJson = JSON.stringify(context);
    const cacheable = contextJson.length <= MAX_CACHED_CONTEXT;
    const key = `${envId}\n${set.version}\n${audience}\n${contextJson}`;
    const hit = cacheable ? evaluated.get(key) : undefined;
    if (hit !== undefined) {
      // Most recently used last: the Map's insertion order is the eviction order.
      evaluated.delete(key);
      evaluated.set(key, hit);
      return hit;
    }
    const json = flagsJson(set, audience, context);
    const entry = { json, digest: createHash('sha256').update(json).digest('base64url') };
    if (cacheable) remember(key, entry);
    return entry;
  }

  function streamsOf(principal: EnvironmentPrincipal) {
    const day = Math.floor(Date.now() / 86_400_000);
    let part = streams.get(principal.keyId);
    if (part === undefined || part.day !== day) {
      part = { day, json: eventStreamsJson(tokens.issue(principal)) };
      streams.set(principal.keyId, part);
    }
    return part;
  }

  return {
    answer(principal: EnvironmentPrincipal, set: EvaluationSet, audience: EvaluationAudience, context: EvaluationContext): BulkAnswer {
      const flags = evaluate(set, audience, principal.envId, context);
      const stream = streamsOf(principal);
      return {
        body: flags.json + stream.json,
        // The flags part by its digest, the stream part verbatim: together, the answer's bytes.
        etag: entityTag(tagKey, ['ofrep-bulk/v1', principal.keyId, flags.digest, stream.json]),
      };
    },
  };
}
