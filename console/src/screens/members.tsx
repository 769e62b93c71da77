// Members of an app and their roles (GET/POST/PATCH/DELETE /api/v1/apps/{appId}/members).
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
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['members', appId] });
  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/apps/{appId}/members', { params: { path: { appId } }, body: { email, role } as never })),
    onSuccess: async () => { notify(`${email} added as ${role}.`); setEmail(''); await refresh(); },
  });
  const setMemberRole = useMutation({
    mutationFn: (input: { userId: string; role: Role }) => unwrap(api.PATCH('/api/v1/apps/{appId}/members/{userId}', { params: { path: { appId, userId: input.userId } }, body: { role: input.role } })),
    onSuccess: async () => { notify('Role changed.'); await refresh(); },
  });
  const remove = useMutation({
    mutationFn: (userId: string) => unwrap(api.DELETE('/api/v1/apps/{appId}/members/{userId}', { params: { path: { appId, userId } } })),
    onSuccess: async () => { notify('Member removed.'); setRemoving(null); await refresh(); },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    add.mutate();
  }

  return (
    <section>
      <h1>Members{app ? <span className="muted"> of {app.name}</span> : null}</h1>
      <QueryState query={members} loading="Loading members…" isEmpty={(d) => d.members.length === 0} empty={<Empty title="No members" />}>
        {(data) => (
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Members and roles</caption>
              <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {data.members.map((m) => (
                  <tr key={m.userId}>
                    <th scope="row">{m.email}{m.userId === session?.userId && <span className="muted"> (you)</span>}</th>
                    <td>{owner ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => setMemberRole.mutate({ userId: m.userId, role: e.target.value as Role })}>
                        {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                      </select>
                    ) : m.role}</td>
                    <td>{dateTime(m.createdAt)}</td>
                    <td>{owner && <button type="button" className="button button-small button-danger" onClick={() => setRemoving({ userId: m.userId, email: m.email })}>Remove</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
      {setMemberRole.isError && <ErrorMessage error={setMemberRole.error} title="Role not changed" />}
      {owner && (
        <form className="card form" onSubmit={submit}>
          <h2>Add a member</h2>
          <p className="muted small">The person needs an Ensign account. Owners manage members and policy; editors change, propose, approve and execute; viewers read.</p>
          <div className="grid-2">
            <div className="field"><label htmlFor={ids.email}>E-mail</label><input id={ids.email} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} /></div>
            <div className="field"><label htmlFor={ids.role}>Role</label>
              <select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as Role)}>{ROLES.map((r) => <option key={r} value={r}>{r}</option>)}</select></div>
          </div>
          {add.isError && <ErrorMessage error={add.error} title="Not added" />}
          <button type="submit" className="button button-primary" disabled={add.isPending}>Add member</button>
        </form>
      )}
      <Confirm open={removing !== null} onOpenChange={(o) => { if (!o) { setRemoving(null); remove.reset(); } }} title={`Remove ${removing?.email ?? ''}?`} action="Remove" danger busy={remove.isPending} onAction={() => removing && remove.mutate(removing.userId)}>
        <p>They lose access to this app at once; their tokens stop reaching it.</p>
        {remove.isError && <ErrorMessage error={remove.error} title="Not removed" />}
      </Confirm>
    </section>
  );
}
