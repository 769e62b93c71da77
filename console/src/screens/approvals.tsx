// The approvals inbox: proposals of an environment (GET /api/v1/authority/proposals), by status.
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrent } from '../api/hooks';
import { DiffTable } from '../components/diff-table';
import { EnvironmentBadges } from '../components/layout';
import { Empty, ErrorMessage, Loading, QueryState } from '../components/states';
import { dateTime } from '../lib/format';

const STATUSES = ['open', 'approved', 'executed', 'expired', 'stale'] as const;
type Status = (typeof STATUSES)[number];

/** One line saying what a proposal changes. */
export function changeSummary(change: { kind: string; body: Record<string, unknown> }): string {
  const b = change.body;
  switch (change.kind) {
    case 'flag.patch': {
      const fields = Object.keys(b).filter((k) => k !== 'key' && k !== 'op');
      if ('enabled' in b && fields.length === 1) return `turn ${String(b.key)} ${b.enabled ? 'on' : 'off'}`;
      return `${b.op === 'create' ? 'create' : 'change'} ${String(b.key)}${fields.length ? ` (${fields.join(', ')})` : ''}`;
    }
    case 'flag.delete':
      return `delete ${String(b.key)}`;
    case 'rollback.apply':
      return `roll back to version ${String(b.targetVersion)}`;
    case 'bulk.apply':
      return 'bulk apply';
    default:
      return `${change.kind}${b.experimentId ? ` of ${String(b.experimentId)}` : ''}${b.to ? ` → ${String(b.to)}` : ''}`;
  }
}

export function ApprovalsScreen() {
  const { environment, appId, env, apps } = useCurrent();
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') ?? 'open') as Status | 'all';
  const selectId = useId();
  const proposals = useQuery({
    queryKey: ['proposals', appId, env, status],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/authority/proposals', {
          params: { query: { appId, env, ...(status !== 'all' ? { status } : {}) } },
        }),
      ),
  });
  if (apps.isPending) return <Loading />;
  if (!environment)
    return <ErrorMessage title="Not found" error={apps.error ?? new Error(`No environment ${env} in this app.`)} />;
  return (
    <section>
      <h1>
        Approvals <span className="muted">in {environment.name}</span> <EnvironmentBadges environment={environment} />
      </h1>
      <div className="toolbar">
        <label htmlFor={selectId}>Status</label>
        <select id={selectId} value={status} onChange={(e) => setParams({ status: e.target.value })}>
          <option value="all">all</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <QueryState
        query={proposals}
        loading="Loading proposals…"
        isEmpty={(d) => d.proposals.length === 0}
        empty={
          <Empty title={status === 'all' ? 'No proposals in this environment' : `No ${status} proposals`}>
            Changes to a protected environment appear here once someone proposes them.
          </Empty>
        }
      >
        {(data) => (
          <ul className="feed">
            {data.proposals.map((p) => (
              <li key={p.proposal.id} className="card">
                <p className="card-title">
                  <Link to={`/apps/${appId}/${env}/approvals/${p.proposal.id}`}>
                    {changeSummary(p.proposal.change as never)}
                  </Link>{' '}
                  <span className={`badge badge-status-${p.status}`}>{p.status}</span>
                </p>
                <p className="muted small">
                  {p.proposal.id} · base version {p.proposal.baseVersion} · {p.approvals.length}/
                  {p.proposal.requiredApprovals} approvals · proposed {dateTime(p.proposal.createdAt)}
                  {p.proposal.reason ? ` · “${p.proposal.reason}”` : ''}
                </p>
                <details>
                  <summary>
                    {p.proposal.preview.changes.length} change{p.proposal.preview.changes.length === 1 ? '' : 's'} to
                    what is served
                  </summary>
                  <DiffTable changes={p.proposal.preview.changes} caption={`Changes of ${p.proposal.id}`} />
                </details>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}
