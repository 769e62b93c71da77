// An experiment's results (GET /api/v1/experiments/{id}/results): units and rates per variant,
// each metric's effect with its interval drawn against zero (fixed horizon and, when the experiment
// uses it, sequential), SRM and guardrail health, the decision and freshness.
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ApiError, api, unwrap } from '../api/client';
import { useCurrent } from '../api/hooks';
import { IntervalPlot } from '../charts/interval-plot';
import { Empty, ErrorMessage, Loading, QueryState } from '../components/states';
import { dateTime, number, percent } from '../lib/format';

const DECISIONS: Record<string, string> = {
  not_ready: 'Not ready: too few units, or the data is unhealthy. Keep running.',
  continue: 'Continue: healthy, but the primary metric’s interval still includes zero.',
  evidence_qualified: 'Evidence qualified: healthy, and the primary metric’s interval excludes zero.',
};

export function ResultsScreen() {
  const { experimentId = '' } = useParams();
  const { appId, env, environment } = useCurrent();
  const experiment = useQuery({
    queryKey: ['experiment', appId, env, experimentId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/experiments/{id}', { params: { path: { id: experimentId }, query: { appId, env } } })),
  });
  const iteration = experiment.data?.experiment.currentIteration;
  const results = useQuery({
    queryKey: ['results', appId, env, experimentId, iteration?.id, iteration?.revision],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/experiments/{id}/results', {
          params: {
            path: { id: experimentId },
            query: { appId, env, iterationId: iteration!.id, iterationRevision: iteration!.revision },
          },
        }),
      ),
    enabled: !!iteration,
    // No run has succeeded yet (404): the first read queued one; look again shortly.
    refetchInterval: (query) =>
      query.state.error instanceof ApiError && query.state.error.status === 404 ? 5000 : false,
  });
  const metrics = useQuery({
    queryKey: ['metrics', appId, env],
    queryFn: () => unwrap(api.GET('/api/v1/metrics', { params: { query: { appId, env } } })),
  });
  const metricName = (id: string) => metrics.data?.metrics.find((m) => m.id === id)?.name ?? id;

  return (
    <section>
      <p>
        <Link to={`/apps/${appId}/${env}/experiments/${experimentId}`}>← The experiment</Link>
      </p>
      <QueryState query={experiment} loading="Loading the experiment…">
        {({ experiment: x }) => (
          <>
            <h1>
              Results: {x.name} <span className="muted">in {environment?.name ?? env}</span>
            </h1>
            {!iteration ? (
              <Empty title="Not started">Results exist once the experiment runs.</Empty>
            ) : results.isPending ? (
              <Loading label="Loading results…" />
            ) : results.isError ? (
              results.error instanceof ApiError && results.error.status === 404 ? (
                <Empty title="No results yet">
                  The first aggregation run of iteration {iteration.number} (revision {iteration.revision}) is queued;
                  this page looks again every few seconds.
                </Empty>
              ) : (
                <ErrorMessage error={results.error} retry={() => void results.refetch()} />
              )
            ) : (
              (() => {
                const r = results.data;
                const metricIds = [...new Set(r.inference.fixedHorizon.map((e) => e.metricId))];
                const primary = x.primaryMetric?.metricId;
                return (
                  <>
                    <div className={`decision decision-${r.analysisDecision}`} role="status">
                      <strong>Decision: {r.analysisDecision.replace('_', ' ')}</strong> —{' '}
                      {DECISIONS[r.analysisDecision]}
                    </div>
                    <p className="muted small">
                      Computed {dateTime(r.freshness.computedAt)} · newest event{' '}
                      {r.freshness.lagSeconds.toLocaleString('en')} s before now · run <code>{r.aggregate.runId}</code>{' '}
                      · iteration {iteration.number} rev {r.iterationRevision} · {r.analysisEngineVersion}
                    </p>
                    <h2>Variants</h2>
                    <div className="table-scroll">
                      <table className="table">
                        <caption className="visually-hidden">Units and metric means per variant</caption>
                        <thead>
                          <tr>
                            <th scope="col">Variant</th>
                            <th scope="col">Units</th>
                            {metricIds.map((m) => (
                              <th key={m} scope="col">
                                {metricName(m)}
                              </th>
                            ))}
                          </tr>
                        </thead>
                        <tbody>
                          {r.aggregate.variants.map((v) => (
                            <tr key={v.key}>
                              <th scope="row">{v.key}</th>
                              <td>{number(v.units)}</td>
                              {metricIds.map((m) => (
                                <td key={m}>{v.metrics[m] ? number(v.metrics[m]!.mean) : '—'}</td>
                              ))}
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                    <h2>Effects against {r.aggregate.variants[0]?.key ?? 'control'}</h2>
                    {metricIds.map((m) => {
                      const fixed = r.inference.fixedHorizon.filter((e) => e.metricId === m);
                      const sequential = r.inference.sequential?.filter((e) => e.metricId === m) ?? [];
                      const rowsOf = (list: typeof fixed) =>
                        list
                          .filter((e) => e.relative)
                          .map((e) => ({
                            label: e.variant,
                            effect: e.relative!.effect,
                            ci: e.relative!.ci as [number, number],
                          }));
                      const unavailable = fixed.filter((e) => !e.relative);
                      return (
                        <div key={m} className="card">
                          <h3>
                            {metricName(m)}
                            {m === primary ? ' (primary)' : ''}
                          </h3>
                          {rowsOf(fixed).length > 0 && (
                            <IntervalPlot
                              title={`${metricName(m)}, relative effect, fixed horizon`}
                              rows={rowsOf(fixed)}
                              format={(v) => percent(v, 1)}
                            />
                          )}
                          {rowsOf(sequential).length > 0 && (
                            <IntervalPlot
                              title={`${metricName(m)}, relative effect, sequential (valid at any look)`}
                              rows={rowsOf(sequential)}
                              format={(v) => percent(v, 1)}
                            />
                          )}
                          {unavailable.map((e) => (
                            <p key={e.variant} className="muted">
                              {e.variant}: no effect ({e.unavailable ?? 'unavailable'})
                            </p>
                          ))}
                          <table className="table small">
                            <caption className="visually-hidden">Effects on {metricName(m)}</caption>
                            <thead>
                              <tr>
                                <th scope="col">Variant</th>
                                <th scope="col">Absolute</th>
                                <th scope="col">Relative</th>
                                <th scope="col">Interval</th>
                                <th scope="col">p</th>
                              </tr>
                            </thead>
                            <tbody>
                              {fixed.map((e) => (
                                <tr key={e.variant}>
                                  <th scope="row">{e.variant}</th>
                                  <td>{e.absolute ? number(e.absolute.effect) : '—'}</td>
                                  <td>{e.relative ? percent(e.relative.effect, 1) : '—'}</td>
                                  <td>
                                    {e.relative
                                      ? `${percent(e.relative.ci[0], 1)} to ${percent(e.relative.ci[1], 1)}`
                                      : '—'}
                                  </td>
                                  <td>{e.relative ? number(e.relative.pValue) : '—'}</td>
                                </tr>
                              ))}
                            </tbody>
                          </table>
                        </div>
                      );
                    })}
                    <h2>Health</h2>
                    <ul className="health">
                      <li>
                        <span className={`badge badge-health-${r.health.srm.status}`}>
                          {r.health.srm.status.replace(/_/g, ' ')}
                        </span>{' '}
                        Sample ratio (SRM): χ² {number(r.health.srm.chiSquare)}, p = {number(r.health.srm.pValue)}
                      </li>
                      <li>
                        <span className={`badge badge-health-${r.health.multipleExposures.status}`}>
                          {r.health.multipleExposures.status.replace(/_/g, ' ')}
                        </span>{' '}
                        Multiple exposures: {number(r.health.multipleExposures.count)} (
                        {percent(r.health.multipleExposures.rate)})
                      </li>
                      {r.health.guardrails.map((g) => (
                        <li key={`${g.metricId}/${g.variant}`}>
                          <span className={`badge badge-guardrail-${g.status}`}>{g.status}</span> Guardrail{' '}
                          {metricName(g.metricId)} for {g.variant}: at most {percent(g.maxRelativeDegradation)} worse
                          {g.ci ? `, interval ${percent(g.ci[0], 1)} to ${percent(g.ci[1], 1)}` : ''}
                        </li>
                      ))}
                    </ul>
                    {r.diagnostics.length > 0 && (
                      <>
                        <h2>Diagnostics</h2>
                        <ul>
                          {r.diagnostics.map((d) => (
                            <li key={d}>{d}</li>
                          ))}
                        </ul>
                      </>
                    )}
                  </>
                );
              })()
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}
