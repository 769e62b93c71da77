// What the flag routes ask for, as the domain sees it. Flags have no table of their own: they live in
// the environment's composite state (versions module), so every change is a config version.
import type { FlagDefinition } from '@ensign/engine';
import type { PrivacySettings } from '../config/index.js';

export const FLAG_PATCH_OPS = ['upsert', 'create', 'update', 'toggle'] as const;
export type FlagPatchOp = (typeof FLAG_PATCH_OPS)[number];

/**
 * Every field of a flag a request may set (the key addresses the flag and is not among them), as the
 * request gives it: the schema checked its shape, the engine's validateFlagDefinition decides whether
 * it is a valid flag once merged with the current definition — so until then it is `unknown`.
 */
export type FlagFields = { [F in Exclude<keyof FlagDefinition, 'key'>]?: unknown };

export interface FlagPatch {
  key: string;
  op: FlagPatchOp;
  fields: FlagFields;
}

/** Bulk apply changes existing flags: their values through `flags`, everything else but the type here. */
export const ADVANCED_FLAG_FIELDS = [
  'enabled',
  'offValue',
  'clientEnabled',
  'description',
  'rollout',
  'variants',
  'rules',
  'overrides',
  'dependencies',
  'metadata',
] as const;
export type AdvancedFlagFields = Pick<FlagFields, (typeof ADVANCED_FLAG_FIELDS)[number]>;

export interface BulkChanges {
  /** Flag key → new value of the flag's existing type. */
  flags?: Record<string, unknown>;
  advanced?: { flags?: Record<string, AdvancedFlagFields>; ttlSeconds?: number };
  privacy?: Partial<PrivacySettings>;
}
