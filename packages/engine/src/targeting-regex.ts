// Regular expressions of `matches` conditions run on re2js, a pure-JavaScript port of RE2: matching
// takes time linear in the input whatever the pattern, so no context sent by a client (a browser
// holding a pub_ key, say) can make an evaluation slow, as `(a+)+$` does to a backtracking engine.
// The price is RE2's syntax: no backreferences and no lookaround. JavaScript spellings RE2 lacks
// (`\u0041`, `\u{1F600}`, `\cA`) are translated first, so patterns written for JavaScript keep
// working when they only use what RE2 can do. No native code: the engine stays usable in an SDK.
import { RE2JS } from 're2js';

export const MAX_REGEX_LENGTH = 256;

export interface TargetingRegex {
  /** Whether the expression matches somewhere in `input` (anchor with ^…$ for a whole match). */
  test(input: string): boolean;
}

/** Compiles a pattern that targetingRegexProblem accepted. @throws when it did not. */
export function compileTargetingRegex(pattern: string): TargetingRegex {
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
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
      if (!inClass && ((next !== undefined && next >= '1' && next <= '9') || (next === 'k' && pattern[i + 2] === '<'))) return 'backreference';
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

/** Why `pattern` cannot be a targeting expression, or null when it can. */
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
