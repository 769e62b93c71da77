// One proposal: its change and preview diff, its approvals; approve (not your own), execute, and
// read back what is in effect (POST /api/v1/authority/approve, execute, readback).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrent, useMemberEmails } from '../api/hooks';
import { useSession } from '../auth/use-session';
import { DiffTable } from '../components/diff-table';
import { useNotify } from '../components/notices';
import { ErrorMessage, Loading, QueryState } from '../components/states';
import { dateTime } from '../lib/format';
import { changeSummary } from './approvals';

export function ProposalScreen() {
  const { proposalId = '' } = useParams();
  const { appId, env, environment } = useCurrent();
  const session = useSession();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [comment, setComment] = useState('');
  const emails = useMemberEmails(appId);
  const who = (userId: string | undefined, fallback: string) =>
    userId === session?.userId ? 'you' : userId ? (emails[userId] ?? userId) : fallback;
  const view = useQuery({
    queryKey: ['proposal', appId, proposalId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/authority/proposals/{id}', { params: { path: { id: proposalId }, query: { appId } } })),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['proposal', appId, proposalId] });
    await queryClient.invalidateQueries({ queryKey: ['proposals', appId, env] });
  };
  const approve = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/authority/approve', {
          body: { appId, env, proposalId, digest: view.data!.proposal.digest, ...(comment ? { comment } : {}) },
        }),
      ),
    onSuccess: async () => {
      notify('Approved.');
      await refresh();
    },
  });
  const execute = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/authority/execute', { body: { appId, env, proposalId, digest: view.data!.proposal.digest } }),
      ),
    onSuccess: async (answer) => {
      notify(`Executed: version ${answer.receipt.appliedVersion}.`);
      await refresh();
      await queryClient.invalidateQueries({ queryKey: ['flags', appId, env] });
    },
  });
  const receiptId = view.data?.receipt?.id;
  const readback = useQuery({
    queryKey: ['readback', appId, env, receiptId],
    queryFn: () => unwrap(api.POST('/api/v1/authority/readback', { body: { appId, env, receiptId: receiptId! } })),
    enabled: !!receiptId,
  });

  return (
    <section>
      <p>
        <Link to={`/apps/${appId}/${env}/approvals`}>← Approvals{environment ? ` in ${environment.name}` : ''}</Link>
      </p>
      <QueryState query={view} loading="Loading the proposal…">
        {(data) => {
          const p = data.proposal;
          const mine = p.proposedBy.userId === session?.userId;
          const approvedByMe = data.approvals.some((a) => a.approvedBy === session?.userId);
          const preview = p.preview as {
            resultVersion: number;
            changes: {
              op: string;
              resourceType: string;
              key: string;
              path: string;
              before?: unknown;
              after?: unknown;
            }[];
            resource?: { type: string; id: string; after: unknown };
          };
          return (
            <>
              <h1>
                Proposal: {changeSummary(p.change as never)}{' '}
                <span className={`badge badge-status-${data.status}`}>{data.status}</span>
              </h1>
              <dl className="facts">
                <dt>Id</dt>
                <dd>
                  <code>{p.id}</code>
                </dd>
                <dt>Kind</dt>
                <dd>
                  <code>{p.change.kind}</code>
                </dd>
                <dt>Proposed by</dt>
                <dd>
                  {who(p.proposedBy.userId, p.proposedBy.type)} on {dateTime(p.createdAt)}
                </dd>
                <dt>Reason</dt>
                <dd>{p.reason ?? '—'}</dd>
                <dt>Base version</dt>
                <dd>
                  {p.baseVersion} → {preview.resultVersion}
                </dd>
                <dt>Approvals</dt>
                <dd>
                  {data.approvals.length} of {p.requiredApprovals} required
                  {data.approvals.map((a) => (
                    <div key={a.id} className="small muted">
                      {who(a.approvedBy, a.approvedBy)} · {dateTime(a.createdAt)}
                      {a.comment ? ` · “${a.comment}”` : ''}
                    </div>
                  ))}
                </dd>
                <dt>Expires</dt>
                <dd>{dateTime(p.expiresAt)}</dd>
              </dl>
              <h2>What it changes</h2>
              <DiffTable changes={preview.changes} caption="Changes the proposal makes when executed" />
              {preview.resource && (
                <details>
                  <summary>
                    {preview.resource.type} {preview.resource.id} after the change
                  </summary>
                  <pre className="code">{JSON.stringify(preview.resource.after, null, 2)}</pre>
                </details>
              )}
              <details>
                <summary>The change as proposed</summary>
                <pre className="code">{JSON.stringify(p.change, null, 2)}</pre>
              </details>

              {(data.status === 'open' || data.status === 'approved') && (
                <div className="card">
                  <h2>Review</h2>
                  {mine ? (
                    <p className="muted">You proposed this change: someone else approves it.</p>
                  ) : approvedByMe ? (
                    <p>You approved this change.</p>
                  ) : (
                    <form
                      className="form"
                      onSubmit={(e) => {
                        e.preventDefault();
                        approve.mutate();
                      }}
                    >
                      <label className="field">
                        <span>Comment (optional)</span>
                        <textarea
                          rows={2}
                          maxLength={1000}
                          value={comment}
                          onChange={(e) => setComment(e.target.value)}
                        />
                      </label>
                      <button type="submit" className="button button-primary" disabled={approve.isPending}>
                        {approve.isPending ? 'Approving…' : 'Approve'}
                      </button>
                    </form>
                  )}
                  {approve.isError && <ErrorMessage error={approve.error} title="Not approved" />}
                  {data.status === 'approved' && (
                    <p>
                      <button
                        type="button"
                        className="button button-primary"
                        onClick={() => execute.mutate()}
                        disabled={execute.isPending}
                      >
                        {execute.isPending ? 'Executing…' : 'Execute'}
                      </button>
                    </p>
                  )}
                  {execute.isError && <ErrorMessage error={execute.error} title="Not executed" />}
                </div>
              )}
              {data.receipt && (
                <div className="card">
                  <h2>Executed</h2>
                  <p>
                    Applied as version {data.receipt.appliedVersion} by{' '}
                    {who(data.receipt.executedBy.userId, data.receipt.executedBy.type)} on{' '}
                    {dateTime(data.receipt.executedAt)}.
                  </p>
                  {readback.isPending ? (
                    <Loading label="Reading back…" />
                  ) : readback.isError ? (
                    <ErrorMessage error={readback.error} retry={() => void readback.refetch()} />
                  ) : (
                    <p role="status">
                      {readback.data.observation.inEffect
                        ? 'In effect: the live configuration equals what this proposal applied'
                        : 'No longer in effect: the configuration changed since'}{' '}
                      (current version {readback.data.observation.currentVersion}, served version{' '}
                      {readback.data.observation.servedVersion ?? '—'}).{' '}
                      <button type="button" className="link" onClick={() => void readback.refetch()}>
                        Read back again
                      </button>
                    </p>
                  )}
                </div>
              )}
            </>
          );
        }}
      </QueryState>
      {!view.data && view.isFetching && !view.isPending && <Loading />}
    </section>
  );
}
