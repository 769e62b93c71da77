// Regular expressions of `matches` conditions. The engine does not bundle a regex engine of its own:
// one is installed with installRegexEngine. The package's main entry (`@ensign/engine`) installs
// re2js (./re2.ts), a pure-JavaScript port of RE2; `@ensign/engine/core` installs none, so a browser
// bundle leaves out re2js's ~150 KB until a flag uses `matches` (docs/engine.md, "Regular
// expressions"). Without an installed engine a `matches` condition does not validate (issue code
// regex_engine_missing), so compileFlagSet refuses the configuration instead of guessing.
//
// Whatever the engine, targeting expressions keep RE2's promise: matching takes time linear in the
// input, so no context sent by a client (a browser holding a pub_ key, say) can make an evaluation
// slow, as `(a+)+$` does to a backtracking engine. The price is RE2's syntax: no backreferences and
// no lookaround, refused below before any engine sees the pattern.

import type { Condition } from './model.js';

export const MAX_REGEX_LENGTH = 256;

export interface TargetingRegex {
  /** Whether the expression matches somewhere in `input` (anchor with ^…$ for a whole match). */
  test(input: string): boolean;
}

/** A regular-expression engine for `matches` conditions. It must match in linear time (RE2
 * semantics): the engine has already refused lookaround and backreferences. */
export interface RegexEngine {
  /** A short name for messages, like "re2js". */
  readonly name: string;
  /** Compiles a pattern written in JavaScript's or RE2's syntax. @throws an Error whose message says
   * what is wrong when the pattern is not a valid expression. */
  compile(pattern: string): TargetingRegex;
}

let installed: RegexEngine | null = null;

/**
 * Installs the engine that compiles `matches` conditions from now on (null uninstalls it). The
 * main entry `@ensign/engine` installs re2js on import; with `@ensign/engine/core`, install one
 * before compiling a flag set that uses `matches` (see needsRegexEngine), for example
 * `installRegexEngine((await import('@ensign/engine/re2')).re2RegexEngine)`. Flag sets compiled
 * before keep the expressions they compiled.
 */
export function installRegexEngine(engine: RegexEngine | null): void {
  installed = engine;
}

/** The installed engine, or null. */
export function installedRegexEngine(): RegexEngine | null {
  return installed;
}

export const REGEX_ENGINE_MISSING =
  'needs a regular-expression engine for the matches operator, and none is installed: import @ensign/engine ' +
  '(which installs re2js) rather than @ensign/engine/core, or call installRegexEngine first';

/** Compiles a pattern that targetingRegexProblem accepted. @throws when it did not, or when no
 * regex engine is installed. */
export function compileTargetingRegex(pattern: string): TargetingRegex {
  if (installed === null) throw new Error(`a matches condition ${REGEX_ENGINE_MISSING}`);
  return installed.compile(pattern);
}

/**
 * Finds the constructs no linear-time engine runs. Backreferences are looked for before translating
 * (the translation reads `\k<name>` as JavaScript's identity escape `k<name>`, which would change
 * the pattern's meaning instead of refusing it). Escapes and character classes are skipped, so `\(?=`
 * and `[(?=]` are not lookaround. One pass, no regex: this reads client input.
 */
function nonRegularConstruct(pattern: string): 'backreference' | 'lookaround' | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (!inClass && ((next !== undefined && next >= '1' && next <= '9') || (next === 'k' && pattern[i + 2] === '<')))
        return 'backreference';
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(' && pattern[i + 1] === '?') {
      const kind = pattern[i + 2] === '<' ? pattern[i + 3] : pattern[i + 2];
      if (kind === '=' || kind === '!') return 'lookaround';
    }
  }
  return null;
}

/** Why `pattern` cannot be a targeting expression, or null when it can. Call it with an engine
 * installed (validation reports a missing one first, as regex_engine_missing). */
export function targetingRegexProblem(pattern: string): string | null {
  if (pattern.length > MAX_REGEX_LENGTH) {
    return `must be a regular expression of at most ${MAX_REGEX_LENGTH} characters (got ${pattern.length})`;
  }
  // RE2's own words for these ("invalid named capture: `(?<=a)`") do not say why: say it.
  switch (nonRegularConstruct(pattern)) {
    case 'lookaround':
      return 'uses lookaround ((?=, (?!, (?<= or (?<!), which cannot run in linear time; targeting expressions use RE2 syntax, without lookaround';
    case 'backreference':
      return 'uses a backreference (\\1 or \\k<name>), which cannot run in linear time; targeting expressions use RE2 syntax, without backreferences';
  }
  try {
    compileTargetingRegex(pattern);
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `is not a regular expression in RE2 syntax (the linear-time engine targeting uses): ${reason}`;
  }
}

type Conditions = { conditions?: readonly Condition[] | null };

/**
 * Whether compiling these flags and experiments needs a regex engine: some rule condition or
 * experiment targeting uses `matches`. Lets a caller of `@ensign/engine/core` load re2js only when
 * a configuration needs it. Reads untrusted shapes defensively (anything malformed is left to
 * validation).
 */
export function needsRegexEngine(
  flags: Iterable<{ rules?: readonly Conditions[] | null }>,
  experiments: Iterable<{ targeting?: readonly Condition[] | null }> = [],
): boolean {
  const usesMatches = (conditions: unknown) =>
    Array.isArray(conditions) &&
    conditions.some((c) => typeof c === 'object' && c !== null && (c as Condition).operator === 'matches');
  for (const flag of flags) {
    if (Array.isArray(flag?.rules) && flag.rules.some((rule) => usesMatches(rule?.conditions))) return true;
  }
  for (const experiment of experiments) if (usesMatches(experiment?.targeting)) return true;
  return false;
}
