// The address of the change stream for one environment key, with a stream token in it: advertised
// in OFREP bulk answers (eventStreams) and, as the X-Ensign-Event-Stream header, on the core/v1
// document for the Ensign SDK (decision 0044). Tokens are issued per UTC day, so a key's address is
// kept for the day: the answers that carry it keep the same bytes all day.
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import type { StreamTokens } from './stream-token.js';

export const EVENTS_PATH = '/api/ofrep/v1/events';
const DAY_MS = 86_400_000;
/** Keys remembered; forgotten all at once when this many have gathered. */
const MAX_KEYS = 50_000;

export type StreamLinks = (principal: EnvironmentPrincipal, nowMs?: number) => string;

export function createStreamLinks(tokens: StreamTokens): StreamLinks {
  const links = new Map<string, { day: number; uri: string }>();
  return (principal, nowMs = Date.now()) => {
    const day = Math.floor(nowMs / DAY_MS);
    let link = links.get(principal.keyId);
    if (link === undefined || link.day !== day) {
      if (links.size >= MAX_KEYS) links.clear();
      link = { day, uri: `${EVENTS_PATH}?token=${encodeURIComponent(tokens.issue(principal, nowMs))}` };
      links.set(principal.keyId, link);
    }
    return link.uri;
  };
}
