import type { Role } from '../../../platform/app-access.js';

export interface App {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
}

export interface Environment {
  id: string;
  appId: string;
  slug: string;
  name: string;
  createdAt: string;
  policy: EnvironmentPolicy;
}

export interface EnvironmentPolicy {
  /** Distinct approvals every configuration change needs (0 to 5); 0 allows direct writes. */
  requiredApprovals: number;
}

export const MAX_REQUIRED_APPROVALS = 5;

export interface Member {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
  updatedAt: string;
}

/** An invitation as the 202 of an invite answers it (CONTRACT.md §8): nothing about the address. */
export interface Invitation {
  id: string;
  appId: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

/** A pending invitation as the app's owners list it: the address they typed, and who invited. */
export interface AppInvitation extends Invitation {
  email: string;
  invitedBy: string;
}

/** A pending invitation as its invitee lists it: which app it opens. */
export interface ReceivedInvitation extends Invitation {
  appName: string;
  appSlug: string;
}

/** Invitations expire 7 days after they are made (or renewed by a second invite). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** Default environments of a new app (CONTRACT section 1). */
export const DEFAULT_ENVIRONMENTS = [
  { slug: 'dev', name: 'Development' },
  { slug: 'staging', name: 'Staging' },
  { slug: 'prod', name: 'Production' },
] as const;

/** The older description's slugs, accepted on every env input. */
const ENV_ALIASES: Record<string, string> = { development: 'dev', production: 'prod' };

export function canonicalEnvSlug(env: string): string {
  return ENV_ALIASES[env] ?? env;
}
