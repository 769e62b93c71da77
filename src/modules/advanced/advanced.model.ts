// Core schema v1: the composed advanced configuration document served by GET /api/v1/advanced-config,
// as the domain sees it. Pure types; the schemas that document them are advanced.schemas.ts.
import type { Dependency, FlagType, Rollout, Rule, Variant } from '../../engine/index.js';
import type { PrivacySettings } from '../versions/index.js';

export const CORE_SCHEMA_VERSION = 'core/v1';

/** `server`: sdk_, cli_ and admin_ credentials see every flag whole. `client`: pub_ keys see the
 * client projection (see client-projection.ts). */
export type CoreAudience = 'server' | 'client';

export interface CoreFlag {
  type: FlagType;
  value: unknown;
  /** The flag's clientEnabled setting. In a client projection a flag present only because a
   * client-visible flag depends on it keeps `false` here. */
  clientVisible: boolean;
  rollout: Rollout | null;
  variants: Variant[] | null;
  rules: Rule[];
  overrides: Record<string, unknown>;
  dependencies: Dependency[];
  metadata: Record<string, unknown>;
}

export interface CoreDelivery {
  ttlSeconds: number;
  /** The same strong tag as the ETag header of the response that carried the document. */
  etag: string;
  generatedAt: string;
  pollIntervalSeconds: number;
}

export interface CoreDocument {
  schemaVersion: typeof CORE_SCHEMA_VERSION;
  appId: string;
  env: string;
  version: number;
  audience: CoreAudience;
  delivery: CoreDelivery;
  privacy: PrivacySettings;
  flags: Record<string, CoreFlag>;
}
