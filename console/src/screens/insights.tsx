// Insights of one flag (POST /api/v1/insights/query): exposures or decisions per variant over time,
// suppressed cells shown as suppressed.
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useCurrent } from '../api/hooks';
import { TimeSeries } from '../charts/time-series';
import { EnvironmentBadges } from '../components/layout';
import { Empty, ErrorMessage, Loading } from '../components/states';
import { number } from '../lib/format';
import { seriesByVariant, type InsightRow } from '../lib/series';

const MEASURES = ['exposures', 'decisions', 'subjects'] as const;
type Measure = (typeof MEASURES)[number];

export function InsightsScreen() {
  const { environment, appId, env, apps } = useCurrent();
  const [params, setParams] = useSearchParams();
  const flagKey = params.get('flag') ?? '';
  const days = Number(params.get('days') ?? '7');
  const measure = (params.get('measure') ?? 'exposures') as Measure;
  const [draft, setDraft] = useState({ flag: flagKey, days: String(days), measure });
  const ids = { flag: useId(), days: useId(), measure: useId() };
  const grain = days > 2 ? 'day' : 'hour';
  const insights = useQuery({
    queryKey: ['insights', appId, env, flagKey, days],
    queryFn: () => {
      const to = new Date();
      const from = new Date(to.getTime() - days * 86_400_000);
      return unwrap(
        api.POST('/api/v1/insights/query', {
          body: {
            appId,
            env,
            from: from.toISOString(),
            to: to.toISOString(),
            grain,
            dimensions: ['variant'],
            measures: ['exposures', 'decisions', 'subjects'],
            filters: { flagKey },
          },
        }),
      );
    },
    enabled: flagKey !== '',
  });
  if (apps.isPending) return <Loading />;
  if (!environment)
    return <ErrorMessage title="Not found" error={apps.error ?? new Error(`No environment ${env} in this app.`)} />;

  function submit(event: FormEvent) {
    event.preventDefault();
    setParams({ flag: draft.flag, days: draft.days, measure: draft.measure });
  }

  // JSON was asked for (no format): the CSV and NDJSON shapes never come here.
  const data = insights.data as Exclude<typeof insights.data, string | undefined> | undefined;
  const rows = (data?.rows ?? []) as InsightRow[];
  const observed = new Set(rows.map((r) => r.bucketStart));
  const { buckets, series } = seriesByVariant(rows, measure, data ? { ...data.effectiveWindow, grain } : undefined);
  return (
    <section>
      <h1>
        Insights <span className="muted">in {environment.name}</span> <EnvironmentBadges environment={environment} />
      </h1>
      <form className="toolbar" onSubmit={submit}>
        <label htmlFor={ids.flag}>Flag</label>
        <input
          id={ids.flag}
          required
          value={draft.flag}
          onChange={(e) => setDraft({ ...draft, flag: e.target.value })}
        />
        <label htmlFor={ids.days}>Window</label>
        <select id={ids.days} value={draft.days} onChange={(e) => setDraft({ ...draft, days: e.target.value })}>
          <option value="1">last 24 hours (hourly)</option>
          <option value="2">last 2 days (hourly)</option>
          <option value="7">last 7 days (daily)</option>
          <option value="30">last 30 days (daily)</option>
          <option value="90">last 90 days (daily)</option>
        </select>
        <label htmlFor={ids.measure}>Measure</label>
        <select
          id={ids.measure}
          value={draft.measure}
          onChange={(e) => setDraft({ ...draft, measure: e.target.value as Measure })}
        >
          {MEASURES.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <button type="submit" className="button button-primary">
          Show
        </button>
      </form>
      {flagKey === '' ? (
        <Empty title="Choose a flag">
          Insights read the hourly rollups of telemetry events (exposures, decisions) per variant.
        </Empty>
      ) : insights.isPending ? (
        <Loading label="Querying…" />
      ) : insights.isError ? (
        <ErrorMessage error={insights.error} retry={() => void insights.refetch()} />
      ) : rows.length === 0 ? (
        <Empty title={`No events for ${flagKey} in this window`}>
          Events arrive through <code>POST /api/v1/events/batch</code> from SDKs.
        </Empty>
      ) : (
        <>
          <p className="muted small">
            As of {data!.freshness.asOf} (lag {data!.freshness.lagSeconds} s) · cells under{' '}
            {data!.suppression.minimumSubjects} subjects are suppressed: {data!.suppression.suppressedCells} on this
            page · subjects are approximate ({data!.approximation.subjects})
          </p>
          <TimeSeries title={`${measure} of ${flagKey} per variant`} buckets={buckets} series={series} grain={grain} />
          <div className="table-scroll">
            <table className="table small">
              <caption>
                {measure} of {flagKey} per variant and {grain} ({grain === 'day' ? 'days' : 'hours'} without events left
                out)
              </caption>
              <thead>
                <tr>
                  <th scope="col">{grain === 'day' ? 'Day' : 'Hour'} (UTC)</th>
                  {series.map((s) => (
                    <th key={s.variant} scope="col">
                      {s.variant}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {buckets.map((b, i) =>
                  !observed.has(b) ? null : (
                    <tr key={b}>
                      <th scope="row">{grain === 'day' ? b.slice(0, 10) : b.slice(0, 16).replace('T', ' ')}</th>
                      {series.map((s) => {
                        const p = s.points[i]!;
                        return (
                          <td key={s.variant}>
                            {p.suppressed ? <span className="suppressed">suppressed</span> : number(p.value)}
                          </td>
                        );
                      })}
                    </tr>
                  ),
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
