// Semantic versions for the semver* operators. Our choice (docs/engine.md): a version is what
// node-semver's strict (non-loose) parser accepts, which allows one leading "v" ("v1.2.3"), and
// nothing is coerced: "1.2" or " 1.2.3" is not a version, so a condition on it is false rather
// than comparing against a guess. Build metadata is ignored when comparing, as SemVer 2.0 says.
import semver, { type SemVer } from 'semver';

export type SemVerInstance = SemVer;

const MAX_LENGTH = 256;

export function parseSemver(value: unknown): SemVerInstance | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return null;
  // node-semver trims surrounding whitespace; we do not accept it.
  if (value.trim() !== value) return null;
  return semver.parse(value, { loose: false });
}

// Context attributes like an app version take few distinct values, and parsing is the dominant
// cost of a semver condition, so parsed versions are memoised. The cache is bounded and simply
// cleared when full: no LRU bookkeeping on the hot path.
const CACHE_LIMIT = 1024;
const cache = new Map<string, SemVerInstance | null>();

export function parseSemverCached(value: unknown): SemVerInstance | null {
  if (typeof value !== 'string') return null;
  let parsed = cache.get(value);
  if (parsed === undefined) {
    parsed = parseSemver(value);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(value, parsed);
  }
  return parsed;
}
