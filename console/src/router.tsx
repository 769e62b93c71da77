// Every screen has a URL under /console. Screens with charts load on demand, so the first page
// carries only what signing in and the flag list need.
import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Loading } from './components/states';
import { AppLayout, RequireSession, RouteError } from './components/layout';
import { SignInScreen } from './screens/sign-in';
import { AppsScreen } from './screens/apps';
import { AppScreen } from './screens/app';
import { FlagsScreen } from './screens/flags';

function lazyScreen<M>(load: () => Promise<M>, name: keyof M) {
  const Screen = lazy(async () => ({ default: (await load())[name] as ComponentType }));
  return (
    <Suspense fallback={<Loading />}>
      <Screen />
    </Suspense>
  );
}

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInScreen mode="signIn" />, errorElement: <RouteError /> },
    { path: '/sign-up', element: <SignInScreen mode="signUp" />, errorElement: <RouteError /> },
    {
      path: '/',
      element: (
        <RequireSession>
          <AppLayout />
        </RequireSession>
      ),
      errorElement: <RouteError />,
      children: [
        { index: true, element: <Navigate to="/apps" replace /> },
        { path: 'apps', element: <AppsScreen /> },
        { path: 'apps/:appId', element: <AppScreen /> },
        { path: 'apps/:appId/changes', element: lazyScreen(() => import('./screens/changes'), 'ChangesScreen') },
        { path: 'apps/:appId/members', element: lazyScreen(() => import('./screens/members'), 'MembersScreen') },
        { path: 'apps/:appId/keys', element: lazyScreen(() => import('./screens/keys'), 'KeysScreen') },
        { path: 'apps/:appId/:env/flags', element: <FlagsScreen /> },
        {
          path: 'apps/:appId/:env/flags/new',
          element: lazyScreen(() => import('./screens/flag-editor'), 'FlagEditorScreen'),
        },
        {
          path: 'apps/:appId/:env/flags/:flagKey',
          element: lazyScreen(() => import('./screens/flag-editor'), 'FlagEditorScreen'),
        },
        {
          path: 'apps/:appId/:env/versions',
          element: lazyScreen(() => import('./screens/versions'), 'VersionsScreen'),
        },
        {
          path: 'apps/:appId/:env/playground',
          element: lazyScreen(() => import('./screens/playground'), 'PlaygroundScreen'),
        },
        {
          path: 'apps/:appId/:env/approvals',
          element: lazyScreen(() => import('./screens/approvals'), 'ApprovalsScreen'),
        },
        {
          path: 'apps/:appId/:env/approvals/:proposalId',
          element: lazyScreen(() => import('./screens/proposal'), 'ProposalScreen'),
        },
        {
          path: 'apps/:appId/:env/experiments',
          element: lazyScreen(() => import('./screens/experiments'), 'ExperimentsScreen'),
        },
        {
          path: 'apps/:appId/:env/experiments/:experimentId',
          element: lazyScreen(() => import('./screens/experiment'), 'ExperimentScreen'),
        },
        {
          path: 'apps/:appId/:env/experiments/:experimentId/results',
          element: lazyScreen(() => import('./screens/results'), 'ResultsScreen'),
        },
        {
          path: 'apps/:appId/:env/insights',
          element: lazyScreen(() => import('./screens/insights'), 'InsightsScreen'),
        },
        { path: '*', element: <NotFound /> },
      ],
    },
  ],
  { basename: '/console' },
);

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>The console has no page at this address.</p>
    </section>
  );
}
