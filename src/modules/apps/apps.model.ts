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
