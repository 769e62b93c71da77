// The bulk answer: every flag the key may see, evaluated for one context, plus the event stream that
// tells the client when to ask again. Its ETag is a keyed digest of these very bytes and the key id,
// so it changes exactly when this key's answer for this context changes; a version number would
// not do, since one client keeps its tag while its context attributes change.
//
// Answers are kept in a bounded, process-wide cache keyed by environment, version, audience, key,
// day (of its stream token) and context: web clients poll with the same context, and a change makes
// every connected client refetch at once, so most bulk requests repeat one answered moments ago. A
// hit is a lookup: no evaluation, no digest, and the bytes go out as they are. An answer is kept
// from the second time its question is asked: a question asked once (a new subject) would only
// push a reusable answer out and leave the garbage collector kilobytes to trace.
import { createHash, createHmac } from 'node:crypto';
import murmurhash from 'murmurhash';
import type { EvaluationContext } from '@ensign/engine';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import type { EvaluationAudience, EvaluationSet } from '../evaluation/index.js';
import { ofrepAnswers } from './ofrep-results.js';
import { INACTIVITY_DELAY_SEC } from './ofrep.schemas.js';
import type { StreamLinks } from './stream-links.js';

/** Process-wide budget of cached answers: their bytes and (two bytes a character) their keys. */
const CACHE_BYTES = 32 * 1024 * 1024;
/** Larger contexts are evaluated every time: they are rare and would crowd the cache. */
const MAX_CACHED_CONTEXT = 4096;
/** Questions remembered (by a 32-bit hash: a collision only caches an answer early) as asked
 * once; forgotten all at once when this many have gathered. */
const SEEN_ONCE = 20_000;
const DAY_MS = 86_400_000;

export interface BulkAnswer {
  readonly body: Buffer;
  readonly etag: string;
}

/** `{"flags":[…]` for one context. `set.flags` must be compiled (the caller answers 500 otherwise). */
export function flagsJson(set: EvaluationSet, audience: EvaluationAudience, context: EvaluationContext): string {
  const flags = set.flags!;
  const keys = set.keysFor(audience);
  const answerOf = ofrepAnswers(set, audience);
  const items = new Array<string>(keys.length);
  for (let i = 0; i < keys.length; i++) items[i] = answerOf(flags.evaluate(keys[i]!, context)).json;
  return `{"flags":[${items.join(',')}]`;
}

/** `,"eventStreams":[…]}` with the key's stream address (a stream token in it). */
export function eventStreamsJson(requestUri: string): string {
  return `,"eventStreams":${JSON.stringify([{ type: 'sse', endpoint: { requestUri }, inactivityDelaySec: INACTIVITY_DELAY_SEC }])}}`;
}

export function createBulkAnswers(tagKey: Buffer, streamLink: StreamLinks) {
  const answers = new Map<string, BulkAnswer>();
  let cachedBytes = 0;
  const sizeOf = (key: string, answer: BulkAnswer) => answer.body.length + key.length * 2;

  function remember(key: string, answer: BulkAnswer) {
    answers.set(key, answer);
    cachedBytes += sizeOf(key, answer);
    while (cachedBytes > CACHE_BYTES) {
      const [oldest, old] = answers.entries().next().value as [string, BulkAnswer];
      answers.delete(oldest);
      cachedBytes -= sizeOf(oldest, old);
    }
  }

  const seenOnce = new Set<number>();
  /** Per stream address (one a key a day), its part of the answer. */
  const streams = new Map<string, string>();
  /** The tag is a hash of a secret, the key id and the bytes: opaque, strong, bound to the key, and
   * one pass over the bytes (an HMAC object per answer would set its key up each time). */
  const tagSecret = createHmac('sha256', tagKey).update('ofrep-bulk/v1').digest();

  function streamsOf(principal: EnvironmentPrincipal): string {
    const uri = streamLink(principal);
    let part = streams.get(uri);
    if (part === undefined) {
      // Yesterday's addresses are never asked for again.
      if (streams.size >= 10_000) streams.clear();
      part = eventStreamsJson(uri);
      streams.set(uri, part);
    }
    return part;
  }

  function build(
    principal: EnvironmentPrincipal,
    set: EvaluationSet,
    audience: EvaluationAudience,
    context: EvaluationContext,
  ): BulkAnswer {
    const body = Buffer.from(flagsJson(set, audience, context) + streamsOf(principal));
    const tag = createHash('sha256')
      .update(tagSecret)
      .update(principal.keyId)
      .update('\n')
      .update(body)
      .digest('base64url');
    return { body, etag: `"${tag.slice(0, 27)}"` };
  }

  return {
    answer(
      principal: EnvironmentPrincipal,
      set: EvaluationSet,
      audience: EvaluationAudience,
      context: EvaluationContext,
    ): BulkAnswer {
      const contextJson = JSON.stringify(context);
      const day = Math.floor(Date.now() / DAY_MS);
      if (contextJson.length > MAX_CACHED_CONTEXT) return build(principal, set, audience, context);
      // The day names the stream token in the answer (tokens are issued per UTC day).
      const key = `${principal.envId}\n${set.version}\n${audience}\n${principal.keyId}\n${day}\n${contextJson}`;
      // Oldest first out (insertion order): answers of past versions are never asked for again, and
      // an answer still in use that was evicted is simply built once more.
      const hit = answers.get(key);
      if (hit !== undefined) return hit;
      const built = build(principal, set, audience, context);
      const asked = murmurhash.v3(key);
      if (seenOnce.delete(asked)) remember(key, built);
      else {
        if (seenOnce.size >= SEEN_ONCE) seenOnce.clear();
        seenOnce.add(asked);
      }
      return built;
    },
  };
}
