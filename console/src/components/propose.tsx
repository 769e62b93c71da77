// Changes to a protected environment are proposed (POST /api/v1/authority/propose): the dialog
// asks for a reason, proposes, and opens the proposal, where another member approves it.
import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/api-types';
import { Modal } from './dialogs';
import { ErrorMessage } from './states';

export type ProposedChange =
  paths['/api/v1/authority/propose']['post']['requestBody']['content']['application/json']['change'];

export function useProposal(appId: string, env: string) {
  const navigate = useNavigate();
  return useMutation({
    mutationFn: (input: { baseVersion: number; change: ProposedChange; reason?: string }) =>
      unwrap(
        api.POST('/api/v1/authority/propose', {
          body: { appId, env, ...input, ...(input.reason ? {} : { reason: undefined }) },
        }),
      ),
    onSuccess: (answer) => navigate(`/apps/${appId}/${env}/approvals/${answer.proposal.id}`),
  });
}

export function ProposeDialog({
  open,
  onOpenChange,
  appId,
  env,
  approvals,
  baseVersion,
  change,
  summary,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  appId: string;
  env: string;
  approvals: number;
  baseVersion: number;
  change: ProposedChange;
  summary: ReactNode;
}) {
  const [reason, setReason] = useState('');
  const propose = useProposal(appId, env);
  return (
    <Modal
      open={open}
      onOpenChange={(next) => {
        if (!next) propose.reset();
        onOpenChange(next);
      }}
      title="Propose this change"
      description={`This environment is protected: the change needs ${approvals} approval${approvals === 1 ? '' : 's'} from someone else before it is executed.`}
    >
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          propose.mutate({ baseVersion, change, reason: reason || undefined });
        }}
      >
        <div className="summary">{summary}</div>
        <label className="field">
          <span>Reason (optional)</span>
          <textarea rows={2} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        {propose.isError && <ErrorMessage error={propose.error} title="Could not propose" />}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => onOpenChange(false)}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={propose.isPending}>
            {propose.isPending ? 'Proposing…' : 'Propose'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
