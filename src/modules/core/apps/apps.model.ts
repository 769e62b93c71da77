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
