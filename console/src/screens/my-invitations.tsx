// Invitations addressed to the signed-in user (GET /api/v1/invitations): membership starts only when
// the invited person accepts, so the apps list is where they are offered.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useNotify } from '../components/notices';
import { ErrorMessage } from '../components/states';
import { dateTime } from '../lib/format';

export function MyInvitations() {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const invitations = useQuery({ queryKey: ['my-invitations'], queryFn: () => unwrap(api.GET('/api/v1/invitations')) });
  const answer = useMutation({
    mutationFn: (input: { id: string; appName: string; accept: boolean }) =>
      unwrap(
        input.accept
          ? api.POST('/api/v1/invitations/{invitationId}/accept', { params: { path: { invitationId: input.id } } })
          : api.POST('/api/v1/invitations/{invitationId}/decline', { params: { path: { invitationId: input.id } } }),
      ),
    onSuccess: async (_data, input) => {
      notify(input.accept ? `You joined ${input.appName}.` : `Invitation to ${input.appName} declined.`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['my-invitations'] }),
        queryClient.invalidateQueries({ queryKey: ['apps'] }),
      ]);
    },
  });
  // Nothing to offer: the panel stays out of the way (a failed load is shown, never hidden).
  if (invitations.isError)
    return (
      <ErrorMessage error={invitations.error} title="Invitations not loaded" retry={() => void invitations.refetch()} />
    );
  const pending = invitations.data?.invitations ?? [];
  if (pending.length === 0) return null;
  return (
    <section className="card" aria-labelledby="my-invitations-title">
      <h2 id="my-invitations-title">Invitations</h2>
      <ul className="inline-list">
        {pending.map((inv) => (
          <li key={inv.id}>
            <strong>{inv.appName}</strong>{' '}
            <span className="muted">
              (<code>{inv.appSlug}</code>)
            </span>{' '}
            invites you as <strong>{inv.role}</strong>
            <span className="muted small"> · expires {dateTime(inv.expiresAt)}</span>{' '}
            <button
              type="button"
              className="button button-small button-primary"
              disabled={answer.isPending}
              onClick={() => answer.mutate({ id: inv.id, appName: inv.appName, accept: true })}
              aria-label={`Accept the invitation to ${inv.appName}`}
            >
              Accept
            </button>{' '}
            <button
              type="button"
              className="button button-small"
              disabled={answer.isPending}
              onClick={() => answer.mutate({ id: inv.id, appName: inv.appName, accept: false })}
              aria-label={`Decline the invitation to ${inv.appName}`}
            >
              Decline
            </button>
          </li>
        ))}
      </ul>
      {answer.isError && <ErrorMessage error={answer.error} title="Not answered" />}
    </section>
  );
}
