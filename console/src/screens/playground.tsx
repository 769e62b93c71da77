// The evaluate playground: a context, POST /api/v1/evaluate with a server key of the environment,
// the value, variant, reason and rule of each flag, and the same request as a curl command.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { apiErrorOf, api, idempotencyKey, unwrap } from '../api/client';
import { canChange, useCurrent } from '../api/hooks';
import { playgroundKey, rememberPlaygroundKey } from '../auth/session';
import { CopyButton } from '../components/copy-button';
import { EnvironmentBadges } from '../components/layout';
import { ErrorMessage, Loading } from '../components/states';
import { evaluateCurl } from '../lib/curl';
import { shortJson } from '../lib/format';

interface Detail {
  key: string;
  value: unknown;
  variant?: string;
  reason: string;
  ruleId?: string;
  errorCode?: string;
  errorMessage?: string;
  fallbackClass?: string;
}

export function PlaygroundScreen() {
  const { app, environment, appId, env, apps } = useCurrent();
  const [pasted, setPasted] = useState('');
  const [flagKey, setFlagKey] = useState('');
  const [context, setContext] = useState('{\n  "targetingKey": "user-42",\n  "plan": "beta"\n}');
  const [contextIssue, setContextIssue] = useState<string | null>(null);
  const [stored, setStored] = useState(0);
  const ids = { key: useId(), flag: useId(), context: useId(), list: useId() };
  const flags = useQuery({
    queryKey: ['flags', appId, env, { q: '', cursor: undefined, limit: 50 }],
    queryFn: () => unwrap(api.GET('/api/v1/flags', { params: { query: { appId, env, limit: 50 } } })),
  });
  const createKey = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/keys', {
          body: { appId, env, type: 'sdk', name: 'console playground' },
          params: { header: { 'idempotency-key': idempotencyKey() } } as never,
        }),
      ),
    onSuccess: (answer) => {
      if (environment && answer.key.token) rememberPlaygroundKey(environment.id, answer.key.token);
      setStored((n) => n + 1);
    },
  });
  const evaluate = useMutation({
    mutationFn: async (input: { token: string; body: Record<string, unknown> }) => {
      const { data, error, response } = await api.POST('/api/v1/evaluate', {
        body: input.body as never,
        headers: { authorization: `Bearer ${input.token}` },
      });
      if (!response.ok) throw apiErrorOf(response.status, error);
      const answer = data as unknown as Detail | { results: Detail[]; version: number };
      return 'results' in answer ? answer.results : [answer];
    },
  });
  if (apps.isPending) return <Loading />;
  if (!app || !environment)
    return <ErrorMessage title="Not found" error={apps.error ?? new Error(`No environment ${env} in this app.`)} />;
  void stored;
  const remembered = playgroundKey(environment.id);
  const token = pasted.trim() || remembered;

  const body = (() => {
    try {
      const parsed = JSON.parse(context) as unknown;
      return { context: parsed, ...(flagKey ? { flagKey } : {}) };
    } catch {
      return null;
    }
  })();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!body || typeof body.context !== 'object' || body.context === null || Array.isArray(body.context)) {
      setContextIssue('The context must be a JSON object, for example { "targetingKey": "user-42" }.');
      return;
    }
    setContextIssue(null);
    if (token) evaluate.mutate({ token, body });
  }

  return (
    <section>
      <h1>
        Evaluate <span className="muted">in {environment.name}</span> <EnvironmentBadges environment={environment} />
      </h1>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={ids.key}>Server key (sdk_) of {environment.name}</label>
          <input
            id={ids.key}
            type="password"
            autoComplete="off"
            placeholder={remembered ? 'Using the key kept for this tab' : 'sdk_…'}
            value={pasted}
            onChange={(e) => setPasted(e.target.value)}
            aria-describedby={`${ids.key}-help`}
          />
          <small id={`${ids.key}-help`} className="muted">
            Evaluation runs as an application would, with a server key.{' '}
            {remembered
              ? 'This tab keeps one for this environment until you sign out.'
              : 'Paste one, or create a key for the playground.'}
          </small>
          {!remembered && canChange(app.role) && (
            <button
              type="button"
              className="button button-small"
              onClick={() => createKey.mutate()}
              disabled={createKey.isPending}
            >
              Create a playground key
            </button>
          )}
          {createKey.isError && <ErrorMessage error={createKey.error} title="Could not create a key" />}
        </div>
        <div className="field">
          <label htmlFor={ids.flag}>Flag (empty: every flag)</label>
          <input id={ids.flag} list={ids.list} value={flagKey} onChange={(e) => setFlagKey(e.target.value)} />
          <datalist id={ids.list}>
            {flags.data?.flags.map((f) => (
              <option key={f.key} value={f.key} />
            ))}
          </datalist>
        </div>
        <div className={contextIssue ? 'field field-invalid' : 'field'}>
          <label htmlFor={ids.context}>Context (JSON)</label>
          <textarea
            id={ids.context}
            className="code"
            rows={8}
            spellCheck={false}
            value={context}
            onChange={(e) => setContext(e.target.value)}
            aria-invalid={contextIssue ? true : undefined}
            aria-describedby={contextIssue ? `${ids.context}-issue` : undefined}
          />
          {contextIssue && (
            <p id={`${ids.context}-issue`} className="field-issues" role="alert">
              {contextIssue}
            </p>
          )}
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={!token || evaluate.isPending}>
            {evaluate.isPending ? 'Evaluating…' : 'Evaluate'}
          </button>
          {body && <CopyButton text={evaluateCurl(location.origin, body)} label="Copy as curl" />}
        </div>
      </form>
      <h2>Result</h2>
      {evaluate.isIdle ? (
        <p className="muted">Evaluate to see each flag's value, variant, reason and rule.</p>
      ) : evaluate.isPending ? (
        <Loading label="Evaluating…" />
      ) : evaluate.isError ? (
        <ErrorMessage error={evaluate.error} title="Evaluation refused" />
      ) : (
        <div className="table-scroll">
          <table className="table">
            <caption className="visually-hidden">Evaluation results</caption>
            <thead>
              <tr>
                <th scope="col">Flag</th>
                <th scope="col">Value</th>
                <th scope="col">Variant</th>
                <th scope="col">Reason</th>
                <th scope="col">Rule</th>
              </tr>
            </thead>
            <tbody>
              {evaluate.data.map((d) => (
                <tr key={d.key}>
                  <th scope="row">{d.key}</th>
                  <td>
                    <code>{shortJson(d.value, 80)}</code>
                  </td>
                  <td>{d.variant ?? '—'}</td>
                  <td>
                    <span className={`badge badge-reason-${d.reason.toLowerCase()}`}>{d.reason}</span>
                    {d.errorCode && (
                      <div className="small muted">
                        {d.errorCode}: {d.errorMessage}
                      </div>
                    )}
                  </td>
                  <td>{d.ruleId ? <code>{d.ruleId}</code> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
