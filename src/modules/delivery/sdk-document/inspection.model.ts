// What an inspection takes and answers (POST /api/v1/advanced-config/inspect), as the domain sees it.
import type { PrivacySettings } from '../../core/config/index.js';
import type { CORE_SCHEMA_VERSION, CoreFlag } from './advanced.model.js';

export interface ProposedDocument {
  schemaVersion?: typeof CORE_SCHEMA_VERSION;
  flags: Record<string, unknown>;
  privacy?: Partial<PrivacySettings>;
  settings?: { ttlSeconds?: number };
}

export interface InspectionIssue {
  path: string;
  message: string;
  code?: string;
}

export interface NormalizedDocument {
  schemaVersion: typeof CORE_SCHEMA_VERSION;
  settings: { ttlSeconds: number };
  privacy: PrivacySettings;
  flags: Record<string, CoreFlag & { description: string }>;
}

export interface Inspection {
  baseVersion: number;
  valid: boolean;
  errors: InspectionIssue[];
  warnings: InspectionIssue[];
  /** Null when the document is invalid: there is nothing it would normalise to. */
  normalized: NormalizedDocument | null;
  /** SHA-256 (hex) of the canonical JSON of `normalized`; equal documents have equal digests. */
  digest: string | null;
}

const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
export const flagPath = (key: string, rest = '') => `/document/flags/${pointer(key)}${rest}`;
