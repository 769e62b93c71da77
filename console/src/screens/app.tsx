// One app's environments: the production marker, the protection (required approvals) and, for
// owners, the setting that changes it (PATCH /api/v1/envs).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useApps, type Environment } from '../api/hooks';
import { EnvironmentBadges } from '../components/layout';
import { useNotify } from '../components/notices';
import { ErrorMessage, QueryState } from '../components/states';

export function AppScreen() {
  const { appId = '' } = useParams();
  const apps = useApps();
  return (
    <QueryState query={apps} loading="Loading the app…">
      {(data) => {
        const app = data.apps.find((a) => a.id === appId);
        if (!app) return <ErrorMessage title="App not found" error={new Error(`No app ${appId} among yours.`)} />;
        return (
          <section>
            <h1>{app.name}</h1>
            <p className="muted">
              <code>{app.id}</code> · slug <code>{app.slug}</code> · your role: {app.role}
            </p>
            <h2>Environments</h2>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Environment</th>
                  <th scope="col">Slug</th>
                  <th scope="col">Marks</th>
                  <th scope="col">Required approvals</th>
                </tr>
              </thead>
              <tbody>
                {app.environments.map((e) => (
                  <tr key={e.slug}>
                    <th scope="row">
                      <Link to={`/apps/${app.id}/${e.slug}/flags`}>{e.name}</Link>
                    </th>
                    <td>
                      <code>{e.slug}</code>
                    </td>
                    <td>
                      <EnvironmentBadges environment={e} />
                    </td>
                    <td>
                      {app.role === 'owner' ? (
                        <PolicyEditor appId={app.id} environment={e} />
                      ) : (
                        e.policy.requiredApprovals
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted small">
              With one or more required approvals, changes in the environment are proposed, approved by someone else and
              then executed (Approvals); stopping an experiment or rollout stays direct.
            </p>
          </section>
        );
      }}
    </QueryState>
  );
}

function PolicyEditor({ appId, environment }: { appId: string; environment: Environment }) {
  const [value, setValue] = useState(String(environment.policy.requiredApprovals));
  const queryClient = useQueryClient();
  const notify = useNotify();
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PATCH('/api/v1/envs', { body: { appId, env: environment.slug, requiredApprovals: Number(value) } })),
    onSuccess: async (answer) => {
      notify(`${answer.environment.name} now requires ${answer.environment.policy.requiredApprovals} approval(s).`);
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });
  const id = `approvals-${environment.slug}`;
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Required approvals for {environment.name}
      </label>
      <input
        id={id}
        type="number"
        min={0}
        max={5}
        step={1}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        className="input-narrow"
      />
      <button
        type="submit"
        className="button button-small"
        disabled={save.isPending || value === String(environment.policy.requiredApprovals)}
      >
        Save
      </button>
      {save.isError && <ErrorMessage error={save.error} title="Not saved" />}
    </form>
  );
}
