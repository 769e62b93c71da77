// Semantic versions for the semver* operators (docs/engine.md). A version is what node-semver's
// strict parser accepts, after two readings the ecosystem's evaluators (flagd, LaunchDarkly) share:
// a leading "v" or "V" is dropped ("V1.0.0" is 1.0.0), and a version of one or two numbers has the
// missing minor and patch read as 0 ("1.2" is 1.2.0, "1" is 1.0.0). A number in a context reads as
// the text JavaScript writes for it, as OpenFeature's flagd evaluator does (String(value)): 1 is
// 1.0.0 and 1.2 is 1.2.0. So 1.10 is 1.1.0 (the same number as 1.1), which is why versions are best
// sent as strings; a negative, non-finite or exponent-written number (1e21) is no version. Nothing
// else is coerced: "1.2-beta", "01.2", "1.2.3.4" and " 1.2.3" are not versions, so a condition on
// them is false rather than a guess. Build metadata is ignored when comparing, as SemVer 2.0 says.
//
// The parser and the comparison are node-semver's strict ones (its FULL expression, its component
// bounds, its precedence rules), written out here: node-semver's class and expression tables were
// 3 KB of a browser bundle's 15 KB gzipped. semver-version.test.ts checks both against node-semver.

const MAX_LENGTH = 256;
/** One or two numeric identifiers without leading zeros (node-semver's own component rule). */
const PARTIAL = /^(0|[1-9]\d{0,15})(?:\.(0|[1-9]\d{0,15}))?$/;
const NUMERIC = '0|[1-9]\\d*';
const PRERELEASE_ID = `(?:\\d*[a-zA-Z-][a-zA-Z0-9-]*|${NUMERIC})`;
/** node-semver's FULL (strict) expression, without its optional "v" (read above). */
const FULL = new RegExp(
  `^(${NUMERIC})\\.(${NUMERIC})\\.(${NUMERIC})(?:-(${PRERELEASE_ID}(?:\\.${PRERELEASE_ID})*))?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$`,
);
const DIGITS = /^[0-9]+$/;

export interface SemVerInstance {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Numeric identifiers as numbers (below 2^53 − 1), the others as strings. */
  readonly prerelease: readonly (string | number)[];
  /** SemVer 2.0 precedence: −1, 0 or 1. */
  compare(other: SemVerInstance): number;
}

function compareIdentifiers(a: string | number, b: string | number): number {
  const aNumeric = DIGITS.test(String(a));
  const bNumeric = DIGITS.test(String(b));
  if (aNumeric && bNumeric) {
    a = +a;
    b = +b;
  }
  return a === b ? 0 : aNumeric && !bNumeric ? -1 : bNumeric && !aNumeric ? 1 : a < b ? -1 : 1;
}

class Version implements SemVerInstance {
  constructor(
    readonly major: number,
    readonly minor: number,
    readonly patch: number,
    readonly prerelease: readonly (string | number)[],
  ) {}

  compare(other: SemVerInstance): number {
    // Major, minor and patch are numbers (bounded by the parser): compared as numbers, which is what
    // compareIdentifiers would conclude, without its text tests on the hot path of a semver condition.
    if (this.major !== other.major) return this.major < other.major ? -1 : 1;
    if (this.minor !== other.minor) return this.minor < other.minor ? -1 : 1;
    if (this.patch !== other.patch) return this.patch < other.patch ? -1 : 1;
    const a = this.prerelease;
    const b = other.prerelease;
    // A version without a prerelease ranks above the same version with one.
    if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
    for (let i = 0; ; i++) {
      if (i >= a.length || i >= b.length) return a.length === b.length ? 0 : i >= a.length ? -1 : 1;
      const c = compareIdentifiers(a[i]!, b[i]!);
      if (c !== 0) return c;
    }
  }
}

/** node-semver's strict parse: null for anything it would refuse. */
function parseStrict(text: string): SemVerInstance | null {
  const m = FULL.exec(text);
  if (m === null) return null;
  const major = +m[1]!;
  const minor = +m[2]!;
  const patch = +m[3]!;
  if (major > Number.MAX_SAFE_INTEGER || minor > Number.MAX_SAFE_INTEGER || patch > Number.MAX_SAFE_INTEGER)
    return null;
  const prerelease =
    m[4] === undefined
      ? []
      : m[4].split('.').map((id) => {
          const n = DIGITS.test(id) ? +id : NaN;
          return n >= 0 && n < Number.MAX_SAFE_INTEGER ? n : id;
        });
  return new Version(major, minor, patch, prerelease);
}

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
  const partial = PARTIAL.exec(text);
  if (partial !== null) return parseStrict(`${partial[1]}.${partial[2] ?? '0'}.0`);
  return parseStrict(text);
}

// Context attributes like an app version take few distinct values, and parsing is the dominant
// cost of a semver condition, so parsed versions are memoised. The cache is bounded and simply
// cleared when full: no LRU bookkeeping on the hot path.
const CACHE_LIMIT = 1024;
const cache = new Map<string, SemVerInstance | null>();

export function parseSemverCached(value: unknown): SemVerInstance | null {
  let text: string;
  if (typeof value === 'string') text = value;
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
