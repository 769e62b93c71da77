// Members of an app and their roles (GET/POST/PATCH/DELETE /api/v1/apps/{appId}/members), and the
// owner's pending invitations (GET/DELETE /api/v1/apps/{appId}/invitations).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useApps, type Role } from '../api/hooks';
import { useSession } from '../auth/use-session';
import { Confirm } from '../components/dialogs';
import { useNotify } from '../components/notices';
import { Empty, ErrorMessage, QueryState } from '../components/states';
import { dateTime } from '../lib/format';

const ROLES: Role[] = ['owner', 'editor', 'viewer'];

export function MembersScreen() {
  const { appId = '' } = useParams();
  const apps = useApps();
  const session = useSession();
  const app = apps.data?.apps.find((a) => a.id === appId);
  const owner = app?.role === 'owner';
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [removing, setRemoving] = useState<{ userId: string; email: string } | null>(null);
  const ids = { email: useId(), role: useId() };
  const members = useQuery({
    queryKey: ['members', appId],
    queryFn: () => unwrap(api.GET('/api/v1/apps/{appId}/members', { params: { path: { appId } } })),
  });
  // Owners alone may list invitations; the query is not asked for anyone else.
  const invitations = useQuery({
    queryKey: ['invitations', appId],
    enabled: owner,
    queryFn: () => unwrap(api.GET('/api/v1/apps/{appId}/invitations', { params: { path: { appId } } })),
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['members', appId] }),
      queryClient.invalidateQueries({ queryKey: ['invitations', appId] }),
    ]);
  // Adding a member is an invitation (202): the person becomes a member when they accept, and the
  // answer is the same whether or not the address has an account.
  const invite = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/apps/{appId}/members', { params: { path: { appId } }, body: { email, role } as never })),
    onSuccess: async () => {
      notify(`${email} invited as ${role}.`);
      setEmail('');
      await refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (invitationId: string) =>
      unwrap(
        api.DELETE('/api/v1/apps/{appId}/invitations/{invitationId}', { params: { path: { appId, invitationId } } }),
      ),
    onSuccess: async () => {
      notify('Invitation revoked.');
      await refresh();
    },
  });
  const setMemberRole = useMutation({
    mutationFn: (input: { userId: string; role: Role }) =>
      unwrap(
        api.PATCH('/api/v1/apps/{appId}/members/{userId}', {
          params: { path: { appId, userId: input.userId } },
          body: { role: input.role },
        }),
      ),
    onSuccess: async () => {
      notify('Role changed.');
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (userId: string) =>
      unwrap(api.DELETE('/api/v1/apps/{appId}/members/{userId}', { params: { path: { appId, userId } } })),
    onSuccess: async () => {
      notify('Member removed.');
      setRemoving(null);
      await refresh();
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate();
  }

  return (
    <section>
      <h1>Members{app ? <span className="muted"> of {app.name}</span> : null}</h1>
      <QueryState
        query={members}
        loading="Loading members…"
        isEmpty={(d) => d.members.length === 0}
        empty={<Empty title="No members" />}
      >
        {(data) => (
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Members and roles</caption>
              <thead>
                <tr>
                  <th scope="col">E-mail</th>
                  <th scope="col">Role</th>
                  <th scope="col">Since</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.members.map((m) => (
                  <tr key={m.userId}>
                    <th scope="row">
                      {m.email}
                      {m.userId === session?.userId && <span className="muted"> (you)</span>}
                    </th>
                    <td>
                      {owner ? (
                        <select
                          aria-label={`Role of ${m.email}`}
                          value={m.role}
                          onChange={(e) => setMemberRole.mutate({ userId: m.userId, role: e.target.value as Role })}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td>{dateTime(m.createdAt)}</td>
                    <td>
                      {owner && (
                        <button
                          type="button"
                          className="button button-small button-danger"
                          onClick={() => setRemoving({ userId: m.userId, email: m.email })}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
      {setMemberRole.isError && <ErrorMessage error={setMemberRole.error} title="Role not changed" />}
      {owner && invitations.isError && (
        <ErrorMessage
          error={invitations.error}
          title="Invitations not loaded"
          retry={() => void invitations.refetch()}
        />
      )}
      {owner && (invitations.data?.invitations.length ?? 0) > 0 && (
        <div className="table-scroll">
          <table className="table">
            <caption>Pending invitations</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.data!.invitations.map((inv) => (
                <tr key={inv.id}>
                  <th scope="row">{inv.email}</th>
                  <td>{inv.role}</td>
                  <td>{dateTime(inv.expiresAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="button button-small button-danger"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(inv.id)}
                      aria-label={`Revoke the invitation of ${inv.email}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoke.isError && <ErrorMessage error={revoke.error} title="Not revoked" />}
      {owner && (
        <form className="card form" onSubmit={submit}>
          <h2>Invite a member</h2>
          <p className="muted small">
            They join when they accept the invitation (on their apps page, or <code>ensign invitations accept</code>);
            it expires after 7 days. Owners manage members and policy; editors change, propose, approve and execute;
            viewers read.
          </p>
          <div className="grid-2">
            <div className="field">
              <label htmlFor={ids.email}>E-mail</label>
              <input id={ids.email} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor={ids.role}>Role</label>
              <select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
          </div>
          {invite.isError && <ErrorMessage error={invite.error} title="Not invited" />}
          <button type="submit" className="button button-primary" disabled={invite.isPending}>
            Invite
          </button>
        </form>
      )}
      <Confirm
        open={removing !== null}
        onOpenChange={(o) => {
          if (!o) {
            setRemoving(null);
            remove.reset();
          }
        }}
        title={`Remove ${removing?.email ?? ''}?`}
        action="Remove"
        danger
        busy={remove.isPending}
        onAction={() => removing && remove.mutate(removing.userId)}
      >
        <p>They lose access to this app at once; their tokens stop reaching it.</p>
        {remove.isError && <ErrorMessage error={remove.error} title="Not removed" />}
      </Confirm>
    </section>
  );
}
