// The frame of every signed-in screen: the app and environment switchers, the navigation, the
// user and sign-out. Environments show whether they are production and whether they are protected.
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate, useParams, useRouteError } from 'react-router';
import { api } from '../api/client';
import { isProduction, requiredApprovals, useApps, type Environment } from '../api/hooks';
import { clearSession } from '../auth/session';
import { useSession } from '../auth/use-session';
import { ErrorMessage } from './states';

export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    const next = location.pathname + location.search;
    return <Navigate to={`/sign-in${next && next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`} replace />;
  }
  return <>{children}</>;
}

export function RouteError() {
  const error = useRouteError();
  return (
    <main className="main" id="main">
      <h1>This page failed</h1>
      <ErrorMessage error={error} retry={() => location.reload()} />
    </main>
  );
}

export function EnvironmentBadges({ environment }: { environment: Pick<Environment, 'slug' | 'policy'> }) {
  const approvals = requiredApprovals(environment);
  return (
    <>
      {isProduction(environment) && <span className="badge badge-prod">Production</span>}
      {approvals > 0 && (
        <span className="badge badge-protected" title="Changes go through approvals">
          Protected · {approvals} approval{approvals === 1 ? '' : 's'}
        </span>
      )}
    </>
  );
}

/** A padlock beside a protected environment's name (drawn: no emoji font is assumed). */
function LockIcon() {
  return (
    <svg className="env-lock" viewBox="0 0 16 16" width="12" height="12" role="img" aria-label="protected">
      <path d="M4 7V5a4 4 0 0 1 8 0v2h1v8H3V7h1zm2 0h4V5a2 2 0 0 0-4 0v2z" fill="currentColor" />
    </svg>
  );
}

const ENV_SCREENS = [
  ['flags', 'Flags'],
  ['versions', 'Versions'],
  ['playground', 'Playground'],
  ['approvals', 'Approvals'],
  ['experiments', 'Experiments'],
  ['insights', 'Insights'],
] as const;

const APP_SCREENS = [
  ['changes', 'Changes'],
  ['members', 'Members'],
  ['keys', 'Keys'],
] as const;

export function AppLayout() {
  const session = useSession();
  const apps = useApps();
  const { appId, env } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const app = apps.data?.apps.find((a) => a.id === appId);
  const envSlug = env ?? app?.environments.find((e) => e.slug === 'dev')?.slug ?? app?.environments[0]?.slug;
  const screen = location.pathname.split('/')[4] ?? 'flags';

  // A new page is announced by moving focus to its main region (what a screen reader user expects).
  useEffect(() => {
    main.current?.focus({ preventScroll: true });
  }, [location.pathname]);

  async function signOut() {
    await api.DELETE('/api/v1/cli-token').catch(() => undefined);
    clearSession();
    queryClient.clear();
    void navigate('/sign-in', { replace: true });
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <Link to="/apps" className="brand">
          Ensign
        </Link>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger
            className="button button-quiet"
            aria-label={app ? `App: ${app.name}. Switch app` : 'Choose an app'}
          >
            {app ? app.name : 'Apps'} ▾
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className="menu" align="start" sideOffset={4}>
              {apps.data?.apps.map((a) => (
                <DropdownMenu.Item
                  key={a.id}
                  className="menu-item"
                  onSelect={() =>
                    void navigate(
                      `/apps/${a.id}/${envSlug && a.environments.some((e) => e.slug === envSlug) ? envSlug : (a.environments[0]?.slug ?? 'dev')}/flags`,
                    )
                  }
                >
                  {a.name} <span className="muted">{a.slug}</span>
                </DropdownMenu.Item>
              ))}
              <DropdownMenu.Separator className="menu-separator" />
              <DropdownMenu.Item className="menu-item" onSelect={() => void navigate('/apps')}>
                All apps…
              </DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
        <span className="spacer" />
        <span className="user" title="Signed in">
          {session?.email}
        </span>
        <button type="button" className="button button-quiet" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      {app && (
        <nav className="nav" aria-label="App">
          <div className="env-switch" role="group" aria-label="Environment">
            {app.environments.map((e) => (
              <NavLink
                key={e.slug}
                to={`/apps/${app.id}/${e.slug}/${ENV_SCREENS.some(([s]) => s === screen) ? screen : 'flags'}`}
                className={() => (e.slug === env ? 'env env-active' : 'env')}
                aria-current={e.slug === env ? 'true' : undefined}
              >
                {e.name}
                {isProduction(e) && (
                  <span className="env-mark" aria-label="production">
                    {' '}
                    ●
                  </span>
                )}
                {requiredApprovals(e) > 0 && <LockIcon />}
              </NavLink>
            ))}
          </div>
          <ul className="nav-links">
            {envSlug &&
              ENV_SCREENS.map(([path, label]) => (
                <li key={path}>
                  <NavLink to={`/apps/${app.id}/${envSlug}/${path}`}>{label}</NavLink>
                </li>
              ))}
            {APP_SCREENS.map(([path, label]) => (
              <li key={path}>
                <NavLink to={`/apps/${app.id}/${path}`}>{label}</NavLink>
              </li>
            ))}
            <li>
              <NavLink to={`/apps/${app.id}`} end>
                Environments
              </NavLink>
            </li>
          </ul>
        </nav>
      )}
      <main className="main" id="main" ref={main} tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
