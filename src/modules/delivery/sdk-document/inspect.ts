// Inspection of a proposed core/v1 document, pure: every problem with its flags (the engine's rules,
// the same as on every write path), warnings about what clients would receive, and the normalised
// document with its digest. The request's envelope was checked by the route schema; what is inside
// `flags` is reported here rather than refused, because reporting it is what inspection is for.
import { parseFlagDefinition, validateFlagSet, type FlagDefinition, type ValidationIssue } from '@ensign/engine';
import { digestOf } from '../../../platform/canonical-json.js';
import type { ConfigState, CurrentConfig } from '../../core/config/index.js';
import { CORE_SCHEMA_VERSION } from './advanced.model.js';
import { coreFlag } from './core-document.js';
import { inspectionWarnings } from './inspect-warnings.js';
import {
  flagPath,
  type Inspection,
  type InspectionIssue,
  type NormalizedDocument,
  type ProposedDocument,
} from './inspection.model.js';

/** Stored sorted and without duplicates, as bulk apply stores them. */
const normalisedList = (list: readonly string[]) => [...new Set(list)].sort();

/** The stored flag field is clientEnabled; core/v1 documents call it clientVisible. */
const toCoreName = (text: string) => text.replace(/clientEnabled/g, 'clientVisible');

/** The definition the engine validates from a document entry, or the issues that prevent one. */
function definitionOf(
  key: string,
  entry: unknown,
): { definition: Record<string, unknown> } | { issues: InspectionIssue[] } {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return { issues: [{ path: flagPath(key), code: 'invalid_type', message: `flag "${key}" must be an object` }] };
  }
  const { clientVisible, clientEnabled, ...fields } = entry as Record<string, unknown>;
  const issues: InspectionIssue[] = [];
  if (clientEnabled !== undefined) {
    issues.push({
      path: flagPath(key, '/clientEnabled'),
      code: 'unknown_field',
      message: `flag "${key}": clientEnabled is the management name; core/v1 documents use clientVisible`,
    });
  }
  if (fields.key !== undefined && fields.key !== key) {
    issues.push({
      path: flagPath(key, '/key'),
      code: 'key_mismatch',
      message: `flag "${key}": key must equal the key the flag is listed under, or be left out`,
    });
  }
  if (issues.length > 0) return { issues };
  return { definition: { ...fields, key, ...(clientVisible !== undefined ? { clientEnabled: clientVisible } : {}) } };
}

function engineIssue(issue: ValidationIssue): InspectionIssue {
  return {
    path: flagPath(issue.flagKey ?? '', toCoreName(issue.path)),
    code: issue.code,
    message: toCoreName(issue.message),
  };
}

function normalise(definitions: FlagDefinition[], document: ProposedDocument, base: ConfigState): NormalizedDocument {
  const flags: NormalizedDocument['flags'] = {};
  for (const definition of [...definitions].sort((a, b) => (a.key < b.key ? -1 : 1))) {
    flags[definition.key] = { ...coreFlag(definition, 'server', base.privacy), description: definition.description };
  }
  // Sections the document leaves out keep the base version's settings.
  const privacy = document.privacy ?? {};
  return {
    schemaVersion: CORE_SCHEMA_VERSION,
    settings: { ttlSeconds: document.settings?.ttlSeconds ?? base.settings.ttlSeconds },
    privacy: {
      privateAttributes: normalisedList(privacy.privateAttributes ?? base.privacy.privateAttributes),
      clientMetadataKeys: normalisedList(privacy.clientMetadataKeys ?? base.privacy.clientMetadataKeys),
    },
    flags,
  };
}

export function inspectDocument(base: CurrentConfig, document: ProposedDocument): Inspection {
  const errors: InspectionIssue[] = [];
  const definitions: Record<string, unknown>[] = [];
  for (const key of Object.keys(document.flags).sort()) {
    const found = definitionOf(key, document.flags[key]);
    if ('issues' in found) errors.push(...found.issues);
    else definitions.push(found.definition);
  }
  // The set-wide checks (prerequisites, cycles) need the flags that did parse as objects.
  errors.push(...validateFlagSet(definitions).map(engineIssue));
  if (errors.length > 0)
    return { baseVersion: base.version, valid: false, errors, warnings: [], normalized: null, digest: null };

  const parsed = definitions.map((d) => (parseFlagDefinition(d) as { ok: true; flag: FlagDefinition }).flag);
  const normalized = normalise(parsed, document, base.state);
  return {
    baseVersion: base.version,
    valid: true,
    errors,
    warnings: inspectionWarnings(normalized, base),
    normalized,
    digest: digestOf(normalized),
  };
}
