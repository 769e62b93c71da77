// The change journal as a feed (GET /api/v1/changes) with its filters.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useApps, useMemberEmails } from '../api/hooks';
import { useSession } from '../auth/use-session';
import { DiffTable } from '../components/diff-table';
import { Empty, ErrorMessage, Loading } from '../components/states';
import { authorityLabel, dateTime } from '../lib/format';

const FILTERS = ['env', 'operation', 'source', 'resourceType', 'resourceId'] as const;
type Filter = (typeof FILTERS)[number];

export function ChangesScreen() {
  const { appId = '' } = useParams();
  const apps = useApps();
  const session = useSession();
  const app = apps.data?.apps.find((a) => a.id === appId);
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<Filter, string>;
  const [draft, setDraft] = useState(filters);
  const base = useId();
  const ids = Object.fromEntries(FILTERS.map((f) => [f, `${base}-${f}`])) as Record<Filter, string>;
  const changes = useInfiniteQuery({
    queryKey: ['changes', appId, filters],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/v1/changes', {
          params: {
            query: {
              appId,
              limit: 50,
              ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    initialPageParam: '' as string,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setParams(Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== '')));
  }

  const entries = changes.data?.pages.flatMap((p) => p.changes) ?? [];
  const emails = useMemberEmails(appId);
  const users = { ...emails, ...(session ? { [session.userId]: 'you' } : {}) };
  return (
    <section>
      <h1>Changes{app ? <span className="muted"> in {app.name}</span> : null}</h1>
      <form className="toolbar filters" onSubmit={submit} aria-label="Filters">
        <label htmlFor={ids.env}>Environment</label>
        <select id={ids.env} value={draft.env} onChange={(e) => setDraft({ ...draft, env: e.target.value })}>
          <option value="">all</option>
          {app?.environments.map((e) => (
            <option key={e.slug} value={e.slug}>
              {e.name}
            </option>
          ))}
        </select>
        <label htmlFor={ids.operation}>Operation</label>
        <input
          id={ids.operation}
          placeholder="flag.update"
          value={draft.operation}
          onChange={(e) => setDraft({ ...draft, operation: e.target.value })}
        />
        <label htmlFor={ids.source}>Source</label>
        <select id={ids.source} value={draft.source} onChange={(e) => setDraft({ ...draft, source: e.target.value })}>
          <option value="">all</option>
          {['api', 'cli', 'bulk', 'rollback', 'authority', 'emergency', 'system'].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor={ids.resourceType}>Resource type</label>
        <input
          id={ids.resourceType}
          placeholder="flag"
          value={draft.resourceType}
          onChange={(e) => setDraft({ ...draft, resourceType: e.target.value })}
        />
        <label htmlFor={ids.resourceId}>Resource</label>
        <input
          id={ids.resourceId}
          placeholder="flag key, key id…"
          value={draft.resourceId}
          onChange={(e) => setDraft({ ...draft, resourceId: e.target.value })}
        />
        <button type="submit" className="button button-primary">
          Filter
        </button>
      </form>
      {changes.isPending ? (
        <Loading label="Loading changes…" />
      ) : changes.isError ? (
        <ErrorMessage error={changes.error} retry={() => void changes.refetch()} />
      ) : entries.length === 0 ? (
        <Empty title="No changes match">
          Every applied change (flags, keys, members, rollbacks, approvals) is journaled here.
        </Empty>
      ) : (
        <>
          <ol className="feed">
            {entries.map((c) => (
              <li key={c.id} className="card">
                <p className="card-title">
                  <code>{c.operation}</code> {c.resourceType}: <strong>{c.resourceId}</strong>
                  {c.env && <span className="badge">{c.env}</span>}
                  <span className="badge">{c.source}</span>
                </p>
                <p className="muted small">
                  {dateTime(c.createdAt)} · by {authorityLabel(c.authority, users)}
                  {c.beforeVersion !== null || c.afterVersion !== null
                    ? ` · version ${c.beforeVersion ?? '—'} → ${c.afterVersion ?? '—'}`
                    : ''}{' '}
                  · <code>{c.id}</code>
                </p>
                {c.diff.length > 0 && (
                  <details>
                    <summary>
                      {c.diff.length} change{c.diff.length === 1 ? '' : 's'}
                    </summary>
                    <DiffTable changes={c.diff} caption={`Diff of ${c.id}`} />
                  </details>
                )}
              </li>
            ))}
          </ol>
          {changes.hasNextPage && (
            <button
              type="button"
              className="button"
              disabled={changes.isFetchingNextPage}
              onClick={() => void changes.fetchNextPage()}
            >
              Older changes
            </button>
          )}
        </>
      )}
    </section>
  );
}
