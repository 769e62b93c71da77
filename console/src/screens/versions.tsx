// Versions of an environment: the list, the diff of any two, and a rollback planned first
// (POST /api/v1/rollbacks/plan) then applied by its digest, or proposed in a protected environment.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, idempotencyKey, unwrap } from '../api/client';
import { canChange, requiredApprovals, useCurrent, useMemberEmails } from '../api/hooks';
import { useSession } from '../auth/use-session';
import { DiffTable } from '../components/diff-table';
import { Modal } from '../components/dialogs';
import { EnvironmentBadges } from '../components/layout';
import { useNotify } from '../components/notices';
import { useProposal } from '../components/propose';
import { Empty, ErrorMessage, Loading } from '../components/states';
import { authorityLabel, dateTime } from '../lib/format';

export function VersionsScreen() {
  const { app, environment, appId, env, apps } = useCurrent();
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [target, setTarget] = useState<number | null>(null);
  const session = useSession();
  const emails = { ...useMemberEmails(appId), ...(session ? { [session.userId]: 'you' } : {}) };
  const versions = useInfiniteQuery({
    queryKey: ['versions', appId, env],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/v1/config-versions', {
          params: { query: { appId, env, limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: '' as string,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const diff = useQuery({
    queryKey: ['diff', appId, env, from, to],
    queryFn: () =>
      unwrap(api.GET('/api/v1/config-versions/diff', { params: { query: { appId, env, from: from!, to: to! } } })),
    enabled: from !== null && to !== null,
  });
  if (apps.isPending) return <Loading />;
  if (!app || !environment)
    return <ErrorMessage title="Not found" error={apps.error ?? new Error(`No environment ${env} in this app.`)} />;
  const list = versions.data?.pages.flatMap((p) => p.versions) ?? [];
  const current = versions.data?.pages[0]?.current.version;

  return (
    <section>
      <h1>
        Versions <span className="muted">of {environment.name}</span> <EnvironmentBadges environment={environment} />
      </h1>
      <p className="muted">
        Choose two versions to compare them; roll back to any retained version (a rollback is a new version, history
        stays).
      </p>
      {versions.isPending ? (
        <Loading label="Loading versions…" />
      ) : versions.isError ? (
        <ErrorMessage error={versions.error} retry={() => void versions.refetch()} />
      ) : list.length === 0 ? (
        <Empty title="No versions yet" />
      ) : (
        <>
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Versions of {environment.name}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Change</th>
                  <th scope="col">By</th>
                  <th scope="col">When</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">
                    <span className="visually-hidden">Rollback</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((v) => (
                  <tr key={v.version}>
                    <th scope="row">
                      {v.version}
                      {v.version === current && <span className="badge">current</span>}
                    </th>
                    <td>
                      <code>{v.operation}</code>
                    </td>
                    <td>{authorityLabel(v.authority, emails)}</td>
                    <td>{dateTime(v.createdAt)}</td>
                    <td>
                      <input
                        type="radio"
                        name="from"
                        aria-label={`Compare from version ${v.version}`}
                        checked={from === v.version}
                        onChange={() => setFrom(v.version)}
                      />
                    </td>
                    <td>
                      <input
                        type="radio"
                        name="to"
                        aria-label={`Compare to version ${v.version}`}
                        checked={to === v.version}
                        onChange={() => setTo(v.version)}
                      />
                    </td>
                    <td>
                      {v.version !== current && canChange(app.role) && (
                        <button type="button" className="button button-small" onClick={() => setTarget(v.version)}>
                          Roll back to {v.version}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {versions.hasNextPage && (
            <button
              type="button"
              className="button"
              onClick={() => void versions.fetchNextPage()}
              disabled={versions.isFetchingNextPage}
            >
              Older versions
            </button>
          )}
        </>
      )}
      <h2>
        Diff{' '}
        {from !== null && to !== null ? (
          <>
            of {from} → {to}
          </>
        ) : null}
      </h2>
      {from === null || to === null ? (
        <p className="muted">Pick a “From” and a “To” version above.</p>
      ) : diff.isPending ? (
        <Loading label="Comparing…" />
      ) : diff.isError ? (
        <ErrorMessage error={diff.error} retry={() => void diff.refetch()} />
      ) : (
        <DiffTable changes={diff.data.changes} caption={`Changes from version ${from} to ${to}`} />
      )}
      {target !== null && current !== undefined && (
        <RollbackDialog
          appId={appId}
          env={env}
          environmentName={environment.name}
          approvals={requiredApprovals(environment)}
          current={current}
          target={target}
          onClose={() => setTarget(null)}
        />
      )}
    </section>
  );
}

function RollbackDialog({
  appId,
  env,
  environmentName,
  approvals,
  current,
  target,
  onClose,
}: {
  appId: string;
  env: string;
  environmentName: string;
  approvals: number;
  current: number;
  target: number;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const [key] = useState(idempotencyKey);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const plan = useQuery({
    queryKey: ['rollback-plan', appId, env, target, current],
    queryFn: () =>
      unwrap(
        api.POST('/api/v1/rollbacks/plan', { body: { appId, env, targetVersion: target, expectedVersion: current } }),
      ),
    staleTime: Infinity,
  });
  const apply = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/rollbacks/apply', {
          body: {
            appId,
            env,
            targetVersion: target,
            expectedVersion: current,
            planDigest: plan.data!.plan.digest,
            idempotencyKey: key,
            ...(reason ? { reason } : {}),
          },
        }),
      ),
    onSuccess: async (answer) => {
      notify(`Rolled back to version ${target}: now version ${answer.version}.`);
      await queryClient.invalidateQueries({ queryKey: ['versions', appId, env] });
      await queryClient.invalidateQueries({ queryKey: ['flags', appId, env] });
      onClose();
    },
  });
  const propose = useProposal(appId, env);
  return (
    <Modal
      open
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      wide
      title={`Roll ${environmentName} back to version ${target}`}
      description={
        approvals > 0
          ? `Protected: the rollback is proposed and waits for ${approvals} approval(s).`
          : `Restores version ${target} as version ${current + 1}.`
      }
    >
      {plan.isPending ? (
        <Loading label="Planning the rollback…" />
      ) : plan.isError ? (
        <ErrorMessage error={plan.error} retry={() => void plan.refetch()} />
      ) : (
        <div>
          {plan.data.plan.warnings.length > 0 && (
            <ul className="warnings">
              {plan.data.plan.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          )}
          <DiffTable changes={plan.data.plan.changes} caption="What the rollback changes" />
          <p className="muted small">
            Plan digest <code>{plan.data.plan.digest.slice(0, 16)}…</code>
          </p>
          <label className="field">
            <span>Reason (optional)</span>
            <textarea rows={2} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          {(apply.isError || propose.isError) && (
            <ErrorMessage error={apply.error ?? propose.error} title="Not rolled back" />
          )}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            {approvals > 0 ? (
              <button
                type="button"
                className="button button-primary"
                disabled={propose.isPending}
                onClick={() =>
                  propose.mutate({
                    baseVersion: current,
                    change: {
                      kind: 'rollback.apply',
                      body: { targetVersion: target, planDigest: plan.data.plan.digest, ...(reason ? { reason } : {}) },
                    },
                    reason: reason || undefined,
                  })
                }
              >
                Propose rollback
              </button>
            ) : (
              <button
                type="button"
                className="button button-danger"
                disabled={apply.isPending || plan.data.plan.changes.length === 0}
                onClick={() => apply.mutate()}
              >
                {apply.isPending ? 'Rolling back…' : 'Apply rollback'}
              </button>
            )}
          </div>
        </div>
      )}
    </Modal>
  );
}
