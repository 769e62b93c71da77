import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { appsQuery, flagsPageQuery } from './api/hooks';
import { getSession } from './auth/session';
import { NoticeProvider } from './components/notices';
import { router } from './router';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) is an answer, not a network hiccup: shown at once, not retried.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

// Signed in: the answers the first screen needs are asked for now, while React renders the frame.
if (getSession()) {
  void queryClient.prefetchQuery(appsQuery);
  const flagsPage = /^\/console\/apps\/([^/]+)\/([^/]+)\/flags\/?$/.exec(location.pathname);
  if (flagsPage && !new URLSearchParams(location.search).has('q')) {
    void queryClient.prefetchQuery(
      flagsPageQuery(decodeURIComponent(flagsPage[1]!), decodeURIComponent(flagsPage[2]!), '', undefined),
    );
  }
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <NoticeProvider>
        <RouterProvider router={router} />
      </NoticeProvider>
    </QueryClientProvider>
  </StrictMode>,
);
