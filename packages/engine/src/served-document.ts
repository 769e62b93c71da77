// compileServedDocument: compiles a core/v1 document as the server serves it, without validating
// its flags again (decision 0056). The server validates every definition when it is written and
// answers config_invalid rather than serve an invalid configuration, so what it sends is valid; the
// SDK compiles network, persisted and bootstrap documents this way. What is checked instead: the
// envelope, and the shape of each flag as compiling reads it. Validation (about a third of the
// engine) is not imported here, so it stays out of browser bundles.
import { compileValidatedFlagSet, type CompiledFlagSet } from './compile-set.js';
import { ConfigInvalidError } from './config-invalid-error.js';
import { flagDefinitionsOf, type CoreDocument } from './document.js';
import { envelopeProblem, servedFlagsProblem } from './document-envelope.js';

/**
 * @throws ConfigInvalidError (code invalid_document) when the document is not core/v1 or a flag
 * lacks what compiling reads, and (code regex_engine_missing) when a `matches` condition finds no
 * regex engine installed. A document with invalid values compiles (no check finds them); its
 * evaluations never throw.
 */
export function compileServedDocument(document: unknown): CompiledFlagSet {
  const problem = envelopeProblem(document) ?? servedFlagsProblem((document as CoreDocument).flags as never);
  if (problem !== null)
    throw new ConfigInvalidError([{ path: problem.path, code: 'invalid_document', message: problem.message }]);
  const doc = document as CoreDocument;
  return compileValidatedFlagSet(flagDefinitionsOf(doc), doc.experiments ?? []);
}
