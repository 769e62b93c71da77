// The review before a flag is saved or proposed: the impact the server computed (affected flags,
// visibility for client keys, the changes), a reason in a protected environment, and the confirm.
import type { FlagRecord } from '../../api/hooks';
import { DiffTable } from '../../components/diff-table';
import { Modal } from '../../components/dialogs';
import { ErrorMessage, Loading } from '../../components/states';
import type { FlagSave } from './use-flag-save';

export function ReviewDialog({
  flag,
  formKey,
  environmentName,
  approvals,
  saving,
}: {
  flag: FlagRecord | null;
  formKey: string;
  environmentName: string;
  approvals: number;
  saving: FlagSave;
}) {
  const {
    reviewing,
    setReviewing,
    reason,
    setReason,
    protectedEnv,
    impact,
    save,
    propose,
    conflict,
    confirm,
    reloadFlag,
  } = saving;
  return (
    <Modal
      open={reviewing}
      onOpenChange={(open) => {
        setReviewing(open);
        if (!open) {
          save.reset();
          propose.reset();
        }
      }}
      wide
      title={flag ? `Review the change to ${flag.key}` : `Propose ${formKey}`}
      description={
        protectedEnv
          ? `${environmentName} is protected: the change will wait for ${approvals} approval${approvals === 1 ? '' : 's'}.`
          : 'What saving would change, computed by the server before anything is applied.'
      }
    >
      {flag &&
        (impact.isPending ? (
          <Loading label="Computing the impact…" />
        ) : impact.isError ? (
          <ErrorMessage error={impact.error} title="The change is not valid: see the fields" />
        ) : impact.data ? (
          <div>
            <h3>Affected flags</h3>
            <ul>
              {impact.data.affectedFlags.map((a) => (
                <li key={a.key}>
                  <code>{a.key}</code>: {a.reasons.join(', ')}
                </li>
              ))}
            </ul>
            {(impact.data.visibility.becomeVisible.length > 0 || impact.data.visibility.becomeHidden.length > 0) && (
              <p>
                Client keys: {impact.data.visibility.becomeVisible.map((v) => v.key).join(', ') || 'none'} become
                visible; {impact.data.visibility.becomeHidden.map((v) => v.key).join(', ') || 'none'} become hidden.
              </p>
            )}
            <h3>Changes</h3>
            <DiffTable changes={impact.data.changes} caption="Changes the save would make" />
          </div>
        ) : (
          <p className="muted">A type change cannot be previewed: it is checked as a whole when saved.</p>
        ))}
      {protectedEnv && (
        <label className="field">
          <span>Reason (optional)</span>
          <textarea rows={2} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
      )}
      {(save.isError || propose.isError) && (
        <ErrorMessage
          error={save.error ?? propose.error}
          title={conflict ? 'Someone changed the environment meanwhile: nothing was saved' : 'Not saved'}
          retry={conflict ? reloadFlag : undefined}
          retryLabel="Reload the flag"
        />
      )}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={() => setReviewing(false)}>
          Back to editing
        </button>
        <button
          type="button"
          className="button button-primary"
          disabled={save.isPending || propose.isPending || impact.isPending || impact.isError || !!conflict}
          onClick={confirm}
        >
          {protectedEnv ? (propose.isPending ? 'Proposing…' : 'Propose') : save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </Modal>
  );
}
