// Semantic versions for the semver* operators (docs/engine.md). A version is what node-semver's
// strict parser accepts, after two readings the ecosystem's evaluators (flagd, LaunchDarkly) share:
// a leading "v" or "V" is dropped ("V1.0.0" is 1.0.0), and a version of one or two numbers has the
// missing minor and patch read as 0 ("1.2" is 1.2.0, "1" is 1.0.0). A number in a context reads as
// the text JavaScript writes for it, as OpenFeature's flagd evaluator does (String(value)): 1 is
// 1.0.0 and 1.2 is 1.2.0. So 1.10 is 1.1.0 (the same number as 1.1), which is why versions are best
// sent as strings; a negative, non-finite or exponent-written number (1e21) is no version. Nothing
// else is coerced: "1.2-beta", "01.2", "1.2.3.4" and " 1.2.3" are not versions, so a condition on
// them is false rather than a guess. Build metadata is ignored when comparing, as SemVer 2.0 says.
import type { SemVer } from 'semver';
// Only node-semver's parser (and the SemVer class it returns): the package's index pulls in ranges
// and every function, 6 KB gzipped more in a browser bundle of the engine.
import parse from 'semver/functions/parse.js';

const semver = { parse };

export type SemVerInstance = SemVer;

const MAX_LENGTH = 256;
/** One or two numeric identifiers without leading zeros (node-semver's own component rule). */
const PARTIAL = /^(0|[1-9]\d{0,15})(?:\.(0|[1-9]\d{0,15}))?$/;

/** The text a context number stands for (String(value)), or null for one that cannot be a version. */
function numberText(value: number): string | null {
  return Number.isFinite(value) && value >= 0 ? String(value) : null;
}

export function parseSemver(value: unknown): SemVerInstance | null {
  if (typeof value === 'number') {
    const text = numberText(value);
    return text === null ? null : parseSemver(text);
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return null;
  // node-semver trims surrounding whitespace; we do not accept it.
  if (value.trim() !== value) return null;
  const text = value[0] === 'v' || value[0] === 'V' ? value.slice(1) : value;
  // One prefix only: node-semver would take the "v" of "vv1.2.3" once more.
  if (text[0] === 'v' || text[0] === 'V') return null;
  const partial = PARTIAL.exec(text);
  if (partial !== null) return semver.parse(`${partial[1]}.${partial[2] ?? '0'}.0`);
  return semver.parse(text, { loose: false });
}

// Context attributes like an app version take few distinct values, and parsing is the dominant
// cost of a semver condition, so parsed versions are memoised. The cache is bounded and simply
// cleared when full: no LRU bookkeeping on the hot path.
const CACHE_LIMIT = 1024;
const cache = new Map<string, SemVerInstance | null>();

export function parseSemverCached(value: unknown): SemVerInstance | null {
  let text: string;
  if (typeof value === 'string') text = value;
  // An integer reads as the string of its digits would ("1" and 1 are both 1.0.0).
  // A number reads as the string JavaScript writes for it ("1" and 1 are both 1.0.0, 1.2 is 1.2.0).
  else if (typeof value === 'number') {
    const written = numberText(value);
    if (written === null) return null;
    text = written;
  } else return null;
  let parsed = cache.get(text);
  if (parsed === undefined) {
    parsed = parseSemver(text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, parsed);
  }
  return parsed;
}
