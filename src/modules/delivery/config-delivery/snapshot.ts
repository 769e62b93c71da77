// A compiled snapshot: the document of one (environment, audience) at one version, serialised once,
// with its entity tags. Requests only look things up in it.
import type { ConfigState, CurrentConfig, EnvironmentTarget } from '../../core/config/index.js';
import { digestOf, entityTag } from '../../../platform/entity-tag.js';
import { legacyEnvelope, type Audience } from './legacy-envelope.js';

export const ROUTE_OF: Record<Audience, string> = { server: '/api/v1/config', client: '/api/v1/public-config' };

const REPRESENTATION = 'legacy-envelope/v1+json';

export interface Snapshot {
  readonly envId: string;
  readonly version: number;
  /** The environment's state at this version, shared by its audiences: for modules that build
   * other representations from the same snapshot (evaluation, advanced configuration). Never mutate. */
  readonly state: ConfigState;
  /** The serialised legacy document, sent as is. */
  readonly body: Buffer;
  /** What one credential is answered with at this version, built on its first request and then
   * looked up: no header is computed per request but the quota's. */
  answerFor(keyId: string): KeyAnswer;
}

export interface KeyAnswer {
  /** The tag this credential sees: bound to the key, the representation, the route and the version
   * (and the bytes, so a change in how documents are built can never reuse a tag). */
  readonly etag: string;
  /** The caching headers of every 200 and 304, as names and values in turn (the fast lane writes
   * such a list as it is). */
  readonly headers: readonly string[];
}

/** Revalidate on every use: the document changes with the environment, and the tag says when. */
const CACHE_CONTROL = 'private, no-cache';

export function compileSnapshot(
  target: EnvironmentTarget,
  current: CurrentConfig,
  audience: Audience,
  tagKey: Buffer,
): Snapshot {
  const body = Buffer.from(JSON.stringify(legacyEnvelope(target, current.version, current.state, audience)));
  const digest = digestOf(body);
  const version = current.version;
  // Tags are computed on a credential's first request for this version, then looked up.
  const answers = new Map<string, KeyAnswer>();
  return {
    envId: target.envId,
    version,
    state: current.state,
    body,
    answerFor(keyId) {
      let answer = answers.get(keyId);
      if (answer === undefined) {
        const etag = entityTag(tagKey, [
          REPRESENTATION,
          ROUTE_OF[audience],
          target.envId,
          keyId,
          String(version),
          digest,
        ]);
        answer = Object.freeze({ etag, headers: Object.freeze(['etag', etag, 'cache-control', CACHE_CONTROL]) });
        answers.set(keyId, answer);
      }
      return answer;
    },
  };
}
