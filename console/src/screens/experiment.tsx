// One experiment and its lifecycle. In a protected environment the moves that widen exposure
// (start, resume, complete with a winner, archive, ramp, iterate) are proposed; the stops (pause,
// complete without a winner) stay direct and need a reason.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { canChange, requiredApprovals, useCurrent } from '../api/hooks';
import { Modal } from '../components/dialogs';
import { EnvironmentBadges } from '../components/layout';
import { useNotify } from '../components/notices';
import { useProposal, type ProposedChange } from '../components/propose';
import { ErrorMessage, Loading, QueryState } from '../components/states';
import { dateTime } from '../lib/format';

type Move =
  | {
      kind: 'transition';
      to: 'running' | 'paused' | 'completed' | 'archived';
      label: string;
      stop: boolean;
      winner?: boolean;
    }
  | { kind: 'ramp'; label: string; stop: false }
  | { kind: 'iterate'; label: string; stop: false };

function movesOf(state: string): Move[] {
  switch (state) {
    case 'draft':
      return [{ kind: 'transition', to: 'running', label: 'Start', stop: false }];
    case 'running':
      return [
        { kind: 'transition', to: 'paused', label: 'Pause', stop: true },
        { kind: 'ramp', label: 'Ramp', stop: false },
        { kind: 'transition', to: 'completed', label: 'Complete with a winner', stop: false, winner: true },
        { kind: 'transition', to: 'completed', label: 'Complete without a winner', stop: true },
      ];
    case 'paused':
      return [
        { kind: 'transition', to: 'running', label: 'Resume', stop: false },
        { kind: 'ramp', label: 'Ramp', stop: false },
        { kind: 'iterate', label: 'New iteration', stop: false },
        { kind: 'transition', to: 'completed', label: 'Complete with a winner', stop: false, winner: true },
        { kind: 'transition', to: 'completed', label: 'Complete without a winner', stop: true },
      ];
    case 'completed':
      return [{ kind: 'transition', to: 'archived', label: 'Archive', stop: false }];
    default:
      return [];
  }
}

export function ExperimentScreen() {
  const { experimentId = '' } = useParams();
  const { app, environment, appId, env, apps } = useCurrent();
  const [move, setMove] = useState<Move | null>(null);
  const experiment = useQuery({
    queryKey: ['experiment', appId, env, experimentId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/experiments/{id}', { params: { path: { id: experimentId }, query: { appId, env } } })),
  });
  if (apps.isPending) return <Loading />;
  if (!app || !environment)
    return <ErrorMessage title="Not found" error={apps.error ?? new Error(`No environment ${env} in this app.`)} />;
  const approvals = requiredApprovals(environment);
  return (
    <section>
      <p>
        <Link to={`/apps/${appId}/${env}/experiments`}>← Experiments in {environment.name}</Link>
      </p>
      <QueryState query={experiment} loading="Loading the experiment…">
        {({ experiment: x }) => (
          <>
            <h1>
              {x.name} <span className={`badge badge-state-${x.state}`}>{x.state}</span>{' '}
              <EnvironmentBadges environment={environment} />
            </h1>
            {x.hypothesis && <p>{x.hypothesis}</p>}
            <dl className="facts">
              <dt>Key</dt>
              <dd>
                <code>{x.key}</code> (<code>{x.id}</code>)
              </dd>
              <dt>Flag</dt>
              <dd>
                <Link to={`/apps/${appId}/${env}/flags/${encodeURIComponent(x.flagKey)}`}>{x.flagKey}</Link>
              </dd>
              <dt>Variants</dt>
              <dd>{x.variants.map((v) => `${v.key} (${v.weight} %)`).join(', ')}</dd>
              <dt>Allocation</dt>
              <dd>{x.allocation} % of eligible traffic</dd>
              <dt>Revision</dt>
              <dd>{x.revision}</dd>
              <dt>Iteration</dt>
              <dd>
                {x.currentIteration
                  ? `#${x.currentIteration.number}, revision ${x.currentIteration.revision}, ${x.currentIteration.allocation} %, started ${x.currentIteration.startedAt ? dateTime(x.currentIteration.startedAt) : '—'}`
                  : 'not started'}
              </dd>
              <dt>Winner</dt>
              <dd>{x.winner ?? '—'}</dd>
              <dt>Analysis</dt>
              <dd>
                α {x.analysis.alpha}, {x.analysis.sequential ? 'sequential' : 'fixed horizon'}
                {x.analysis.cuped ? ', CUPED' : ''}, at least {x.analysis.minimumUnitsPerVariant} units per variant
              </dd>
            </dl>
            {x.currentIteration && (
              <p>
                <Link className="button" to={`/apps/${appId}/${env}/experiments/${x.id}/results`}>
                  Results
                </Link>
              </p>
            )}
            {canChange(app.role) && movesOf(x.state).length > 0 && (
              <div className="card">
                <h2>Lifecycle</h2>
                {approvals > 0 && (
                  <p className="muted small">
                    Protected: moves that widen exposure are proposed for approval; pausing and completing without a
                    winner are direct, with a reason.
                  </p>
                )}
                <div className="button-row">
                  {movesOf(x.state).map((m) => (
                    <button
                      key={m.label}
                      type="button"
                      className={m.stop ? 'button button-danger' : 'button'}
                      onClick={() => setMove(m)}
                    >
                      {m.label}
                      {approvals > 0 && !m.stop ? ' (propose)' : ''}
                    </button>
                  ))}
                </div>
              </div>
            )}
            {move && (
              <MoveDialog
                move={move}
                experiment={x}
                appId={appId}
                env={env}
                approvals={approvals}
                onClose={() => setMove(null)}
              />
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}

interface ExperimentLike {
  id: string;
  revision: number;
  allocation: number;
  variants: { key: string }[];
}

function MoveDialog({
  move,
  experiment,
  appId,
  env,
  approvals,
  onClose,
}: {
  move: Move;
  experiment: ExperimentLike;
  appId: string;
  env: string;
  approvals: number;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const [winner, setWinner] = useState(experiment.variants[1]?.key ?? experiment.variants[0]!.key);
  const [allocation, setAllocation] = useState(String(experiment.allocation));
  const queryClient = useQueryClient();
  const notify = useNotify();
  const propose = useProposal(appId, env);
  const needsProposal = approvals > 0 && !move.stop;
  const reasonRequired = approvals > 0 && move.stop;
  const direct = useMutation({
    mutationFn: async () => {
      const common = { appId, env, revision: experiment.revision };
      if (move.kind === 'ramp')
        return unwrap(
          api.POST('/api/v1/experiments/{id}/ramp', {
            params: { path: { id: experiment.id } },
            body: { ...common, allocation: Number(allocation) },
          }),
        );
      if (move.kind === 'iterate')
        return unwrap(
          api.POST('/api/v1/experiments/{id}/iterate', { params: { path: { id: experiment.id } }, body: common }),
        );
      return unwrap(
        api.POST('/api/v1/experiments/{id}/transition', {
          params: { path: { id: experiment.id } },
          body: { ...common, to: move.to, ...(move.winner ? { winner } : {}), ...(reason ? { reason } : {}) },
        }),
      );
    },
    onSuccess: async () => {
      notify(`${move.label}: done.`);
      await queryClient.invalidateQueries({ queryKey: ['experiment', appId, env, experiment.id] });
      await queryClient.invalidateQueries({ queryKey: ['experiments', appId, env] });
      onClose();
    },
  });
  const version = useQuery({
    queryKey: ['config-version', appId, env],
    queryFn: () => unwrap(api.GET('/api/v1/config-versions', { params: { query: { appId, env, limit: 1 } } })),
    enabled: needsProposal,
  });

  function submit() {
    if (!needsProposal) return direct.mutate();
    const body =
      move.kind === 'ramp'
        ? {
            kind: 'experiment.ramp',
            body: { experimentId: experiment.id, revision: experiment.revision, allocation: Number(allocation) },
          }
        : move.kind === 'iterate'
          ? { kind: 'experiment.iterate', body: { experimentId: experiment.id, revision: experiment.revision } }
          : {
              kind: 'experiment.transition',
              body: {
                experimentId: experiment.id,
                revision: experiment.revision,
                to: move.to,
                ...(move.winner ? { winner } : {}),
                ...(reason ? { reason } : {}),
              },
            };
    propose.mutate({
      baseVersion: version.data!.current.version,
      change: body as ProposedChange,
      reason: reason || undefined,
    });
  }

  const error = direct.error ?? propose.error ?? version.error;
  return (
    <Modal
      open
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      title={`${move.label}${needsProposal ? ': propose' : ''}`}
      description={
        move.stop
          ? 'A stop: served at once, the ordinary evaluation of the flag takes over.'
          : needsProposal
            ? `Needs ${approvals} approval(s) before it is executed.`
            : 'Applied at once.'
      }
    >
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {move.kind === 'transition' && move.winner && (
          <label className="field">
            <span>Winner</span>
            <select value={winner} onChange={(e) => setWinner(e.target.value)}>
              {experiment.variants.map((v) => (
                <option key={v.key} value={v.key}>
                  {v.key}
                </option>
              ))}
            </select>
          </label>
        )}
        {move.kind === 'ramp' && (
          <label className="field">
            <span>Allocation (%)</span>
            <input
              type="number"
              min={0.01}
              max={100}
              step={0.01}
              required
              value={allocation}
              onChange={(e) => setAllocation(e.target.value)}
            />
          </label>
        )}
        <label className="field">
          <span>Reason{reasonRequired ? '' : ' (optional)'}</span>
          <textarea
            rows={2}
            maxLength={1000}
            required={reasonRequired}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        </label>
        {error && <ErrorMessage error={error} title="Not done" />}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className={move.stop ? 'button button-danger' : 'button button-primary'}
            disabled={direct.isPending || propose.isPending || (needsProposal && !version.data)}
          >
            {needsProposal ? 'Propose' : move.label}
          </button>
        </div>
      </form>
    </Modal>
  );
}
