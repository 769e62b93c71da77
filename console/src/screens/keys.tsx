// Keys of an app: list, create (the token shown once) and revoke (GET/POST/PATCH /api/v1/keys).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { api, idempotencyKey, unwrap } from '../api/client';
import { useApps } from '../api/hooks';
import { CopyButton } from '../components/copy-button';
import { Confirm, Modal } from '../components/dialogs';
import { useNotify } from '../components/notices';
import { Empty, ErrorMessage, QueryState } from '../components/states';
import { dateTime, relativeTime } from '../lib/format';

type KeyType = 'sdk' | 'pub' | 'admin';

export function KeysScreen() {
  const { appId = '' } = useParams();
  const apps = useApps();
  const app = apps.data?.apps.find((a) => a.id === appId);
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [type, setType] = useState<KeyType>('sdk');
  const [env, setEnv] = useState('dev');
  const [name, setName] = useState('');
  const [revoking, setRevoking] = useState<{ id: string; prefix: string } | null>(null);
  const ids = { type: useId(), env: useId(), name: useId() };
  const keys = useQuery({
    queryKey: ['keys', appId],
    queryFn: () => unwrap(api.GET('/api/v1/keys', { params: { query: { appId } } })),
  });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/keys', {
          body: { appId, type, ...(type !== 'admin' ? { env } : {}), ...(name ? { name } : {}) },
          params: { header: { 'idempotency-key': idempotencyKey() } } as never,
        }),
      ),
    onSuccess: async () => {
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['keys', appId] });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => unwrap(api.PATCH('/api/v1/keys', { body: { keyId, action: 'revoke' } })),
    onSuccess: async () => {
      notify('Key revoked: it is refused from the next request on.');
      setRevoking(null);
      await queryClient.invalidateQueries({ queryKey: ['keys', appId] });
    },
  });
  const canManage = app?.role === 'owner' || app?.role === 'editor';

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <section>
      <h1>Keys{app ? <span className="muted"> of {app.name}</span> : null}</h1>
      <QueryState
        query={keys}
        loading="Loading keys…"
        isEmpty={(d) => d.keys.length === 0}
        empty={<Empty title="No keys" />}
      >
        {(data) => (
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Keys, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Type</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.keys.map((k) => (
                  <tr key={k.id} className={k.status === 'revoked' ? 'row-muted' : undefined}>
                    <th scope="row">
                      <code>{k.prefix}…</code>
                      {k.name && <div className="small muted">{k.name}</div>}
                    </th>
                    <td>{k.type}</td>
                    <td>{k.env ?? 'all'}</td>
                    <td>
                      <span className={`badge badge-key-${k.status}`}>{k.status}</span>
                      {k.revokedAt && <div className="small muted">{dateTime(k.revokedAt)}</div>}
                    </td>
                    <td>{dateTime(k.createdAt)}</td>
                    <td>{k.lastUsedAt ? relativeTime(k.lastUsedAt) : 'never'}</td>
                    <td>
                      {canManage && k.status === 'active' && (
                        <button
                          type="button"
                          className="button button-small button-danger"
                          onClick={() => setRevoking({ id: k.id, prefix: k.prefix })}
                        >
                          Revoke
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
      {canManage && (
        <form className="card form" onSubmit={submit}>
          <h2>Create a key</h2>
          <div className="grid-3">
            <div className="field">
              <label htmlFor={ids.type}>Type</label>
              <select id={ids.type} value={type} onChange={(e) => setType(e.target.value as KeyType)}>
                <option value="sdk">sdk: server, evaluates and reads every flag</option>
                <option value="pub">pub: client, reads client-visible flags</option>
                {app?.role === 'owner' && <option value="admin">admin: manages this app</option>}
              </select>
            </div>
            {type !== 'admin' && (
              <div className="field">
                <label htmlFor={ids.env}>Environment</label>
                <select id={ids.env} value={env} onChange={(e) => setEnv(e.target.value)}>
                  {app?.environments.map((e) => (
                    <option key={e.slug} value={e.slug}>
                      {e.name}
                    </option>
                  ))}
                </select>
              </div>
            )}
            <div className="field">
              <label htmlFor={ids.name}>Name (optional)</label>
              <input id={ids.name} maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
            </div>
          </div>
          {create.isError && <ErrorMessage error={create.error} title="Key not created" />}
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            Create key
          </button>
        </form>
      )}
      <Modal
        open={!!create.data}
        onOpenChange={(o) => {
          if (!o) create.reset();
        }}
        title="Copy the new key now"
        description="The token is shown once; Ensign keeps only its hash."
      >
        {create.data && (
          <div>
            <p>
              <code className="secret">{create.data.key.token}</code>
            </p>
            <CopyButton text={create.data.key.token ?? ''} label="Copy the key" />
            <div className="dialog-actions">
              <button type="button" className="button button-primary" onClick={() => create.reset()}>
                Done
              </button>
            </div>
          </div>
        )}
      </Modal>
      <Confirm
        open={revoking !== null}
        onOpenChange={(o) => {
          if (!o) {
            setRevoking(null);
            revoke.reset();
          }
        }}
        title={`Revoke ${revoking?.prefix ?? ''}…?`}
        action="Revoke key"
        danger
        busy={revoke.isPending}
        onAction={() => revoking && revoke.mutate(revoking.id)}
      >
        <p>Revoking is irreversible: every request with this key is refused from the next one on.</p>
        {revoke.isError && <ErrorMessage error={revoke.error} title="Not revoked" />}
      </Confirm>
    </section>
  );
}
