// Turning a document the client received (network, persisted store or bootstrap) into the compiled
// flag set it evaluates against, loading the regex engine first when the document needs one.
import { installedRegexEngine, needsRegexEngine, type CoreDocument, type RegexEngine } from '@ensign/engine/core';
import type { ClientOptions, ConfigSource } from './client-types.js';
import { EnsignError } from './errors.js';

export function parseDocument(text: string): CoreDocument {
  try {
    return JSON.parse(text) as CoreDocument;
  } catch (error) {
    throw new EnsignError(
      'invalid_document',
      `The document is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * The regex engine to install before compiling `document`, when it uses `matches` and none is
 * installed yet; null otherwise. Null keeps adoption synchronous, so a bootstrap document is served
 * from the first evaluation.
 */
export function regexEngineToInstall(
  document: CoreDocument,
  options: Pick<ClientOptions, 'regexEngine'>,
): Promise<RegexEngine> | null {
  if (
    installedRegexEngine() === null &&
    document?.flags &&
    needsRegexEngine(Object.values(document.flags) as never, document.experiments ?? [])
  )
    return (options.regexEngine ?? loadRe2)();
  return null;
}

/** The error of a document that could not be compiled, naming where it came from. */
export function documentRefused(source: ConfigSource, error: unknown): EnsignError {
  return new EnsignError(
    'invalid_document',
    `The ${source} document was refused: ${error instanceof Error ? error.message : String(error)}`,
  );
}

// A lazy import: re2js is its own chunk in a bundle, loaded only for documents that use `matches`.
async function loadRe2(): Promise<RegexEngine> {
  return (await import('@ensign/engine/re2')).re2RegexEngine;
}
