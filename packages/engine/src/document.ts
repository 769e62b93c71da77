// Core schema v1: the configuration document SDKs evaluate locally (GET /api/v1/advanced-config,
// docs/advanced.md). The server builds it, the SDK and the OpenFeature providers read it; all three
// use these types. Pure types plus the two steps from a document to an evaluator.
import type { FlagDefinition } from './model.js';
import type { ServedExperiment } from './experiment-model.js';
import { compileFlagSet, type CompiledFlagSet } from './compile.js';
import { ConfigInvalidError } from './config-invalid-error.js';
import { isPlainObject } from './json-value.js';
import { validateExperimentFields } from './validate-experiment.js';

export const CORE_SCHEMA_VERSION = 'core/v1';

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
 * Compiles a core/v1 document received from the server (or persisted, or given as a bootstrap):
 * checks its envelope, then validates and compiles its flags and experiments like the server does.
 * @throws ConfigInvalidError when the document is not core/v1, its flags do not validate, or a
 * `matches` condition finds no regex engine installed (see needsRegexEngine).
 */
export function compileDocument(document: unknown): CompiledFlagSet {
  const problem = envelopeProblem(document);
  if (problem !== null) throw new ConfigInvalidError([{ path: problem.path, code: 'invalid_document', message: problem.message }]);
  const doc = document as CoreDocument;
  const experiments = doc.experiments ?? [];
  // The server validated experiments when they were written; a document from elsewhere (a file, a
  // bootstrap) gets the same targeting checks, so a bad condition is refused rather than compiled.
  const issues = experiments.flatMap((experiment, index) =>
    validateExperimentFields({ type: 'json', targeting: experiment.targeting }).map((issue) => ({ ...issue, path: `/experiments/${index}${issue.path}` })));
  if (issues.length > 0) throw new ConfigInvalidError(issues);
  return compileFlagSet(flagDefinitionsOf(doc), experiments);
}

function envelopeProblem(document: unknown): { path: string; message: string } | null {
  if (!isPlainObject(document)) return { path: '', message: 'the document must be a JSON object' };
  if (document.schemaVersion !== CORE_SCHEMA_VERSION) {
    return { path: '/schemaVersion', message: `schemaVersion must be ${JSON.stringify(CORE_SCHEMA_VERSION)} (got ${JSON.stringify(document.schemaVersion) ?? 'nothing'})` };
  }
  if (!isPlainObject(document.flags)) return { path: '/flags', message: 'flags must be an object of flags by key' };
  for (const [key, flag] of Object.entries(document.flags)) {
    if (!isPlainObject(flag)) return { path: `/flags/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: `flag ${JSON.stringify(key)} must be an object` };
  }
  if (document.experiments !== undefined) {
    if (!Array.isArray(document.experiments)) return { path: '/experiments', message: 'experiments must be an array' };
    const index = document.experiments.findIndex((e) => !servedExperimentShape(e));
    if (index >= 0) return { path: `/experiments/${index}`, message: `experiments[${index}] is not a served experiment (id, flagKey, state, salt, allocation, variants, targeting, layer, holdout)` };
  }
  return null;
}

/** Enough of the shape that compiling cannot throw a TypeError; values were validated when written. */
function servedExperimentShape(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const e = value;
  const bucketed = (part: unknown, fields: string[]) => part === null || (isPlainObject(part) && fields.every((f) => part[f] !== undefined));
  return typeof e.id === 'string' && typeof e.flagKey === 'string' && (e.state === 'running' || e.state === 'paused') &&
    typeof e.salt === 'string' && typeof e.allocation === 'number' && typeof e.iterationId === 'string' &&
    Array.isArray(e.variants) && e.variants.every((v) => isPlainObject(v) && typeof v.key === 'string' && typeof v.weight === 'number') &&
    Array.isArray(e.targeting) && e.targeting.every((c) => isPlainObject(c) && typeof c.attribute === 'string' && Array.isArray(c.values)) &&
    bucketed(e.layer, ['salt', 'start', 'end']) && bucketed(e.holdout, ['salt', 'percentage']);
}
