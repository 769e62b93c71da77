// Apps: the list, and creating one (its keys are shown once, with copy buttons).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, idempotencyKey, unwrap } from '../api/client';
import { useApps } from '../api/hooks';
import type { paths } from '../api/api-types';
import { rememberPlaygroundKey } from '../auth/session';
import { CopyButton } from '../components/copy-button';
import { Modal } from '../components/dialogs';
import { EnvironmentBadges } from '../components/layout';
import { Empty, ErrorMessage, QueryState } from '../components/states';
import { MyInvitations } from './my-invitations';

type CreatedApp = paths['/api/v1/apps']['post']['responses']['201']['content']['application/json'];

export function AppsScreen() {
  const apps = useApps();
  const [creating, setCreating] = useState(false);
  return (
    <section>
      <div className="title-row">
        <h1>Apps</h1>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
          Create app
        </button>
      </div>
      <MyInvitations />
      <QueryState
        query={apps}
        loading="Loading apps…"
        isEmpty={(d) => d.apps.length === 0}
        empty={
          <Empty title="No apps yet">
            Create an app to get its environments (Development, Staging, Production) and their keys.
          </Empty>
        }
      >
        {(data) => (
          <ul className="cards">
            {data.apps.map((app) => (
              <li key={app.id} className="card">
                <h2 className="card-title">
                  <Link to={`/apps/${app.id}/dev/flags`}>{app.name}</Link>
                </h2>
                <p className="muted small">
                  <code>{app.slug}</code> · {app.role} · <Link to={`/apps/${app.id}`}>environments</Link>
                </p>
                <ul className="inline-list">
                  {app.environments.map((e) => (
                    <li key={e.slug}>
                      <Link to={`/apps/${app.id}/${e.slug}/flags`}>{e.name}</Link> <EnvironmentBadges environment={e} />
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <CreateAppDialog open={creating} onOpenChange={setCreating} />
    </section>
  );
}

function CreateAppDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [key] = useState(idempotencyKey);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/apps', { body: { name, slug }, params: { header: { 'idempotency-key': key } } as never }),
      ),
    onSuccess: async (created: CreatedApp) => {
      // The playground of this tab may use the new server keys without asking for them again.
      for (const k of created.keys) {
        const environment = created.environments.find((e) => e.slug === k.env);
        if (environment && k.type === 'sdk') rememberPlaygroundKey(environment.id, k.token);
      }
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  function close(next: boolean) {
    if (!next) {
      setName('');
      setSlug('');
      setSlugEdited(false);
      create.reset();
    }
    onOpenChange(next);
  }

  const created = create.data;
  return (
    <Modal
      open={open}
      onOpenChange={close}
      title={created ? `${created.app.name} is ready` : 'Create an app'}
      wide={!!created}
      description={
        created
          ? 'These keys are shown once. Copy them now: Ensign keeps only their hashes.'
          : 'Every app gets Development, Staging and Production environments, a server key for each and an admin key.'
      }
    >
      {created ? (
        <div>
          <table className="table">
            <caption className="visually-hidden">One-time keys of {created.app.name}</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Token</th>
                <th scope="col">
                  <span className="visually-hidden">Copy</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {[...created.keys, created.adminKey].map((k) => (
                <tr key={k.id}>
                  <td>{k.type === 'admin' ? 'Admin' : 'Server (sdk)'}</td>
                  <td>{k.env ?? 'all'}</td>
                  <td>
                    <code className="secret">{k.token}</code>
                  </td>
                  <td>
                    <CopyButton text={k.token} label={`Copy ${k.type} key${k.env ? ` of ${k.env}` : ''}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="dialog-actions">
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                close(false);
                void navigate(`/apps/${created.app.id}/dev/flags`);
              }}
            >
              I have copied them: open the app
            </button>
          </div>
        </div>
      ) : (
        <form className="form" onSubmit={submit}>
          <label className="field">
            <span>Name</span>
            <input
              required
              maxLength={100}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                if (!slugEdited)
                  setSlug(
                    e.target.value
                      .toLowerCase()
                      .replace(/[^a-z0-9]+/g, '-')
                      .replace(/^[^a-z]+/, '')
                      .replace(/-+$/, '')
                      .slice(0, 40),
                  );
              }}
            />
          </label>
          <label className="field">
            <span>Slug</span>
            <input
              required
              minLength={2}
              maxLength={40}
              pattern="[a-z][a-z0-9]*(-[a-z0-9]+)*"
              value={slug}
              aria-describedby="slug-help"
              onChange={(e) => {
                setSlug(e.target.value);
                setSlugEdited(true);
              }}
            />
            <small id="slug-help" className="muted">
              2 to 40 lower-case letters, digits and single hyphens, starting with a letter.
            </small>
          </label>
          {create.isError && <ErrorMessage error={create.error} title="Could not create the app" />}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => close(false)}>
              Cancel
            </button>
            <button type="submit" className="button button-primary" disabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create app'}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
