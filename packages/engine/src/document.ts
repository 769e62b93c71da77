// Core schema v1: the configuration document SDKs evaluate locally (GET /api/v1/advanced-config,
// docs/advanced.md). The server builds it, the SDK and the OpenFeature providers read it; all three
// use these types. Pure types plus the two steps from a document to an evaluator.
import type { FlagDefinition } from './model.js';
import type { ServedExperiment } from './experiment-model.js';
import { compileFlagSet, type CompiledFlagSet } from './compile.js';
import { ConfigInvalidError } from './config-invalid-error.js';
import { CORE_SCHEMA_VERSION, envelopeProblem } from './document-envelope.js';
import { validateExperimentFields } from './validate-experiment.js';

export { CORE_SCHEMA_VERSION };

/** `server`: sdk_, cli_ and admin_ credentials see every flag whole. `client`: pub_ keys see the
 * client projection (only client-visible flags and their prerequisites, no overrides, no rule that
 * reads a private attribute, only the metadata keys the environment lets clients see). */
export type CoreAudience = 'server' | 'client';

/** A flag as core/v1 shows it: the definition without its key (the map key) and description, with
 * `clientEnabled` named `clientVisible`. */
export interface CoreFlag extends Omit<FlagDefinition, 'key' | 'description' | 'clientEnabled'> {
  /** The flag's clientEnabled setting. In a client projection a flag present only because a
   * client-visible flag depends on it keeps `false` here. */
  clientVisible: boolean;
}

export interface CoreDelivery {
  ttlSeconds: number;
  /** The same strong tag as the ETag header of the response that carried the document. */
  etag: string;
  generatedAt: string;
  pollIntervalSeconds: number;
}

/** The environment's privacy settings, sorted lists. */
export interface CorePrivacy {
  /** Context attributes clients must not send (their rules are left out of client projections). */
  privateAttributes: string[];
  /** Metadata keys a client projection keeps. */
  clientMetadataKeys: string[];
}

export interface CoreDocument {
  schemaVersion: typeof CORE_SCHEMA_VERSION;
  appId: string;
  env: string;
  version: number;
  audience: CoreAudience;
  delivery: CoreDelivery;
  privacy: CorePrivacy;
  /** By flag key, in key order. */
  flags: Record<string, CoreFlag>;
  /** Server audience only: the running experiments, sorted by id, so a local evaluator (the
   * engine's compileFlagSet) assigns subjects exactly as remote evaluation does. */
  experiments?: ServedExperiment[];
}

/** The flag definitions of a document, in its key order, as compileFlagSet takes them. */
export function flagDefinitionsOf(document: Pick<CoreDocument, 'flags'>): FlagDefinition[] {
  return Object.keys(document.flags).map((key) => {
    const { clientVisible, ...fields } = document.flags[key];
    return { ...fields, key, description: '', clientEnabled: clientVisible };
  });
}

/**
 * Compiles a core/v1 document from anywhere (a file, a hand-written bootstrap): checks its
 * envelope, then validates and compiles its flags and experiments like the server does. The SDK
 * compiles what the server sent with compileServedDocument (served-document.ts) instead.
 * @throws ConfigInvalidError when the document is not core/v1, its flags do not validate, or a
 * `matches` condition finds no regex engine installed (see needsRegexEngine).
 */
export function compileDocument(document: unknown): CompiledFlagSet {
  const problem = envelopeProblem(document);
  if (problem !== null)
    throw new ConfigInvalidError([{ path: problem.path, code: 'invalid_document', message: problem.message }]);
  const doc = document as CoreDocument;
  const experiments = doc.experiments ?? [];
  // The server validated experiments when they were written; a document from elsewhere (a file, a
  // bootstrap) gets the same targeting checks, so a bad condition is refused rather than compiled.
  const issues = experiments.flatMap((experiment, index) =>
    validateExperimentFields({ type: 'json', targeting: experiment.targeting }).map((issue) => ({
      ...issue,
      path: `/experiments/${index}${issue.path}`,
    })),
  );
  if (issues.length > 0) throw new ConfigInvalidError(issues);
  return compileFlagSet(flagDefinitionsOf(doc), experiments);
}
