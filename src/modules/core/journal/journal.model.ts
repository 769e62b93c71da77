// Journal entries as the domain sees them (CONTRACT section 5).
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../../platform/principal.js';

export const JOURNAL_SOURCES = ['api', 'cli', 'bulk', 'rollback', 'authority', 'emergency', 'system'] as const;
export type JournalSource = (typeof JOURNAL_SOURCES)[number];

export interface JournalAuthority {
  type: 'user' | 'admin_key' | 'system';
  userId?: string;
  keyFingerprint?: string;
}

export interface DiffEntry {
  op: 'add' | 'remove' | 'change';
  resourceType: string;
  key: string;
  path: string;
  before?: unknown;
  after?: unknown;
}

export interface NewJournalEntry {
  appId: string;
  env: string | null;
  operation: string;
  source: JournalSource;
  resourceType: string;
  resourceId: string | null;
  authority: JournalAuthority;
  beforeVersion: number | null;
  afterVersion: number | null;
  diff: DiffEntry[];
  /** What else the entry names: a rollback's target version and plan digest, an authority execution's proposal and approvers. */
  context?: Record<string, unknown>;
}

export interface JournalEntry extends NewJournalEntry {
  id: string;
  createdAt: string;
}

/** Who acted, as the journal records it: never a token, only a user id or a key fingerprint. */
export function authorityOf(principal: Principal): JournalAuthority {
  if (principal.type === 'cli') return { type: 'user', userId: principal.userId };
  return { type: 'admin_key', keyFingerprint: principal.fingerprint };
}

/** The source a caller declares with X-Ensign-Source (the CLI sends `cli`); anything else is `api`. */
export function sourceOf(request: FastifyRequest): JournalSource {
  return request.headers['x-ensign-source'] === 'cli' ? 'cli' : 'api';
}
