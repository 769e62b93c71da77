// Queries several screens share: the apps (with environments and the user's role) and the flags.
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, unwrap } from './client';
import type { paths } from './api-types';

export type AppSummary =
  paths['/api/v1/apps']['get']['responses']['200']['content']['application/json']['apps'][number];
export type Environment = AppSummary['environments'][number];
export type FlagRecord =
  paths['/api/v1/flags']['get']['responses']['200']['content']['application/json']['flags'][number];
export type Role = AppSummary['role'];

export const appsQuery = { queryKey: ['apps'], queryFn: () => unwrap(api.GET('/api/v1/apps')) };

export function useApps() {
  return useQuery(appsQuery);
}

/** The flags screen shows this many flags a page. */
export const FLAG_PAGE_SIZE = 50;

/** One page of the flag list, as the flags screen asks for it (shared so it can be fetched early). */
export function flagsPageQuery(appId: string, env: string, q: string, cursor: string | undefined) {
  return {
    queryKey: ['flags', appId, env, { q, cursor }],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/flags', {
          params: { query: { appId, env, limit: FLAG_PAGE_SIZE, ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ),
  };
}

/** The app and environment the URL names (`/apps/:appId/:env/...`), once the apps are read. */
export function useCurrent() {
  const { appId = '', env = '' } = useParams();
  const apps = useApps();
  const app = apps.data?.apps.find((a) => a.id === appId);
  const environment = app?.environments.find((e) => e.slug === env) ?? null;
  return { apps, app, environment, appId, env };
}

/** Production is the environment whose slug is `prod` (the default "Production" of every app). */
export function isProduction(environment: Pick<Environment, 'slug'> | null | undefined): boolean {
  return environment?.slug === 'prod';
}

export function requiredApprovals(environment: Pick<Environment, 'policy'> | null | undefined): number {
  return environment?.policy.requiredApprovals ?? 0;
}

export function canChange(role: Role | undefined): boolean {
  return role === 'owner' || role === 'editor';
}

/** The app's members by user id → e-mail, to name people instead of ids (empty until read). */
export function useMemberEmails(appId: string): Record<string, string> {
  const members = useQuery({
    queryKey: ['members', appId],
    queryFn: () => unwrap(api.GET('/api/v1/apps/{appId}/members', { params: { path: { appId } } })),
    enabled: appId !== '',
  });
  return Object.fromEntries((members.data?.members ?? []).map((m) => [m.userId, m.email]));
}
