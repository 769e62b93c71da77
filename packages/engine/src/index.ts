// `@ensign/engine`: the engine with re2js installed for `matches` conditions, ready for any flag.
// Bundles that must stay small import `@ensign/engine/core` and load `@ensign/engine/re2` only
// when needsRegexEngine says a configuration uses `matches` (docs/engine.md).
import { installRegexEngine } from './targeting-regex.js';
import { re2RegexEngine } from './re2.js';

installRegexEngine(re2RegexEngine);

export * from './core.js';
export { re2RegexEngine } from './re2.js';
