// Loading, empty and error states every screen shows the same way.
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

/** An error from the API (its code, message, resolution and request id) or any other failure. */
export function ErrorMessage({
  error,
  retry,
  title = 'Something went wrong',
  retryLabel = 'Try again',
}: {
  error: unknown;
  retry?: () => void;
  title?: string;
  retryLabel?: string;
}) {
  const api = error instanceof ApiError ? error : null;
  const message = api ? api.body.message : error instanceof Error ? error.message : String(error);
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">{title}</p>
      <p>{message}</p>
      {api?.body.resolution && <p className="muted">{api.body.resolution}</p>}
      {api && (
        <p className="muted small">
          <code>
            {api.status} {api.code}
          </code>
          {api.body.requestId && (
            <>
              {' '}
              · request <code>{api.body.requestId}</code>
            </>
          )}
        </p>
      )}
      {retry && (
        <button type="button" className="button" onClick={retry}>
          {retryLabel}
        </button>
      )}
    </div>
  );
}

interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

/** Renders a query's loading or error state, its empty state when `isEmpty` says so, else the children. */
export function QueryState<T>({
  query,
  isEmpty,
  empty,
  loading,
  children,
}: {
  query: QueryLike<T>;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  loading?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError) return <ErrorMessage error={query.error} retry={() => void query.refetch()} />;
  const data = query.data as T;
  if (isEmpty?.(data)) return <>{empty}</>;
  return <>{children(data)}</>;
}
