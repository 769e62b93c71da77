// Core schema v1: the composed advanced configuration document served by GET /api/v1/advanced-config,
// as the domain sees it. Pure types; the schemas that document them are advanced.schemas.ts.
import type { FlagDefinition, ServedExperiment } from '@ensign/engine';
import type { PrivacySettings } from '../../core/config/index.js';

export const CORE_SCHEMA_VERSION = 'core/v1';

/** `server`: sdk_, cli_ and admin_ credentials see every flag whole. `client`: pub_ keys see the
 * client projection (see client-projection.ts). */
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

export interface CoreDocument {
  schemaVersion: typeof CORE_SCHEMA_VERSION;
  appId: string;
  env: string;
  version: number;
  audience: CoreAudience;
  delivery: CoreDelivery;
  privacy: PrivacySettings;
  flags: Record<string, CoreFlag>;
  /** Server audience only: the running experiments, sorted by id, so a local evaluator (the
   * engine's compileFlagSet) assigns subjects exactly as remote evaluation does. */
  experiments?: ServedExperiment[];
}
