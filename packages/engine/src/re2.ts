// The regex engine the main entry installs: re2js, a pure-JavaScript port of RE2 (no native code,
// linear-time matching). JavaScript spellings RE2 lacks (`\u0041`, `\u{1F600}`, `\cA`) are
// translated first, so patterns written for JavaScript keep working when they only use what RE2
// can do. Its own entry (`@ensign/engine/re2`) so that a bundle built on `@ensign/engine/core` can
// load it lazily, only when a flag uses `matches`.
import { RE2JS } from 're2js';
import type { RegexEngine } from './targeting-regex.js';

export const re2RegexEngine: RegexEngine = Object.freeze({
  name: 're2js',
  compile: (pattern: string) => RE2JS.compile(RE2JS.translateRegExp(pattern)),
});
