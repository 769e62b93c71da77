// The core/v1 document of one (environment, audience, version), validated and serialised once.
// Requests only splice in their entity tag: `delivery.etag` in the body is the ETag header of the
// same response, and the tag is bound to the credential, so each credential's bytes are assembled
// on its first request for this version and then looked up.
import { ConfigInvalidError, validateFlagSet } from '@ensign/engine';
import type { CurrentConfig, EnvironmentTarget } from '../../core/config/index.js';
import { digestOf, entityTag } from '../../../platform/entity-tag.js';
import type { CoreAudience } from './advanced.model.js';
import { coreDocument } from './core-document.js';

export const ADVANCED_ROUTE = '/api/v1/advanced-config';
const REPRESENTATION = 'core/v1+json';

/** Stands in for the tag while serialising; no appId, env slug or number can contain it, and it
 * is looked for from the start, before the user-supplied flags. */
const TAG_PLACEHOLDER = JSON.stringify('\u0000etag\u0000');
/** Past this many credentials in one version, bodies are assembled per request instead of kept. */
const MAX_KEPT_CREDENTIALS = 1000;

export interface CompiledCoreDocument {
  readonly version: number;
  /** The tag and the bytes one credential (key id or login token id) gets for this version. */
  forCredential(credentialId: string): { etag: string; body: Buffer };
}

export type CoreDocumentBuild = { ok: true; document: CompiledCoreDocument } | { ok: false; error: ConfigInvalidError };

/**
 * Validates the stored flags as a set (unknown prerequisites, cycles, invalid definitions) and
 * serialises the document. An invalid configuration is reported, not thrown, so the caller can
 * keep the failure with the snapshot and answer 500 without re-validating on every request.
 */
export function compileCoreDocument(
  target: EnvironmentTarget,
  current: CurrentConfig,
  audience: CoreAudience,
  tagKey: Buffer,
  generatedAt: string,
): CoreDocumentBuild {
  const issues = validateFlagSet(Object.values(current.state.flags));
  if (issues.length > 0) return { ok: false, error: new ConfigInvalidError(issues) };

  // The tag covers what the document says, not when this process built it: every process then
  // gives the same tag for the same version, and a 304 holds behind a load balancer.
  const content = JSON.stringify(
    coreDocument(target, current.version, current.state, audience, { etag: '', generatedAt: '' }),
  );
  const digest = digestOf(Buffer.from(content));
  const text = JSON.stringify(
    coreDocument(target, current.version, current.state, audience, { etag: '\u0000etag\u0000', generatedAt }),
  );
  const at = text.indexOf(TAG_PLACEHOLDER);
  const head = text.slice(0, at);
  const tail = text.slice(at + TAG_PLACEHOLDER.length);

  const kept = new Map<string, { etag: string; body: Buffer }>();
  const version = current.version;
  return {
    ok: true,
    document: {
      version,
      forCredential(credentialId) {
        let found = kept.get(credentialId);
        if (found === undefined) {
          const etag = entityTag(tagKey, [
            REPRESENTATION,
            ADVANCED_ROUTE,
            audience,
            target.envId,
            credentialId,
            String(version),
            digest,
          ]);
          found = { etag, body: Buffer.from(head + JSON.stringify(etag) + tail) };
          if (kept.size < MAX_KEPT_CREDENTIALS) kept.set(credentialId, found);
        }
        return found;
      },
    },
  };
}
