// Experiments of an environment (GET /api/v1/experiments).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrent } from '../api/hooks';
import { EnvironmentBadges } from '../components/layout';
import { Empty, ErrorMessage, Loading, QueryState } from '../components/states';
import { dateTime } from '../lib/format';

export function ExperimentsScreen() {
  const { environment, appId, env, apps } = useCurrent();
  const experiments = useQuery({
    queryKey: ['experiments', appId, env],
    queryFn: () => unwrap(api.GET('/api/v1/experiments', { params: { query: { appId, env } } })),
  });
  if (apps.isPending) return <Loading />;
  if (!environment)
    return <ErrorMessage title="Not found" error={apps.error ?? new Error(`No environment ${env} in this app.`)} />;
  return (
    <section>
      <h1>
        Experiments <span className="muted">in {environment.name}</span> <EnvironmentBadges environment={environment} />
      </h1>
      <QueryState
        query={experiments}
        loading="Loading experiments…"
        isEmpty={(d) => d.experiments.length === 0}
        empty={
          <Empty title="No experiments in this environment">
            Create one with <code>ensign experiments create</code> or <code>POST /api/v1/experiments</code>; it appears
            here.
          </Empty>
        }
      >
        {(data) => (
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Experiments in {environment.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Experiment</th>
                  <th scope="col">State</th>
                  <th scope="col">Flag</th>
                  <th scope="col">Variants</th>
                  <th scope="col">Allocation</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Results</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.experiments.map((x) => (
                  <tr key={x.id}>
                    <th scope="row">
                      <Link to={`/apps/${appId}/${env}/experiments/${x.id}`}>{x.name}</Link>
                      <div className="muted small">
                        <code>{x.key}</code>
                      </div>
                    </th>
                    <td>
                      <span className={`badge badge-state-${x.state}`}>{x.state}</span>
                    </td>
                    <td>
                      <code>{x.flagKey}</code>
                    </td>
                    <td>{x.variants.map((v) => v.key).join(', ')}</td>
                    <td>{x.allocation} %</td>
                    <td>{dateTime(x.createdAt)}</td>
                    <td>
                      {x.currentIteration && (
                        <Link to={`/apps/${appId}/${env}/experiments/${x.id}/results`}>Results</Link>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
    </section>
  );
}
