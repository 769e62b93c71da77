// The bulk answer: every flag the key may see, evaluated for one context, plus the event stream that
// tells the client when to ask again. Its ETag is a keyed digest of these very bytes and the key id,
// so it changes exactly when this key's answer for this context changes; a version number would
// not do, since one client keeps its tag while its context attributes change.
import type { EvaluationContext } from '../../engine/index.js';
import { entityTag } from '../delivery/index.js';
import type { EvaluationAudience, EvaluationSet } from '../evaluation/index.js';
import { ofrepAnswer } from './ofrep-results.js';
import { INACTIVITY_DELAY_SEC } from './ofrep.schemas.js';

export const EVENTS_PATH = '/api/ofrep/v1/events';

/** The eventStreams member of a bulk answer, for a stream token. */
export function eventStreamsJson(token: string): string {
  const requestUri = `${EVENTS_PATH}?token=${encodeURIComponent(token)}`;
  return JSON.stringify([{ type: 'sse', endpoint: { requestUri }, inactivityDelaySec: INACTIVITY_DELAY_SEC }]);
}

/** The bulk answer's JSON. `set.flags` must be compiled (the caller answers 500 otherwise). */
export function bulkJson(set: EvaluationSet, audience: EvaluationAudience, context: EvaluationContext, streams: string): string {
  const flags = set.flags!;
  const keys = set.keysFor(audience);
  let items = '';
  for (let i = 0; i < keys.length; i++) {
    items += (i === 0 ? '' : ',') + ofrepAnswer(set, flags.evaluate(keys[i]!, context), audience).json;
  }
  return `{"flags":[${items}],"eventStreams":${streams}}`;
}

export function bulkEntityTag(tagKey: Buffer, keyId: string, json: string): string {
  return entityTag(tagKey, ['ofrep-bulk/v1', keyId, json]);
}
