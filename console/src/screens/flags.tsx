// Flags of one environment: server-side search and paging (GET /api/v1/flags with q, limit and
// cursor), each flag's on/off switch, type, value and last change. Turning a flag on or off in
// production asks for confirmation; in a protected environment it opens a proposal.
import * as Switch from '@radix-ui/react-switch';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError, api, unwrap } from '../api/client';
import {
  FLAG_PAGE_SIZE,
  canChange,
  flagsPageQuery,
  isProduction,
  requiredApprovals,
  useCurrent,
  type FlagRecord,
} from '../api/hooks';
import { Confirm } from '../components/dialogs';
import { EnvironmentBadges } from '../components/layout';
import { useNotify } from '../components/notices';
import { ProposeDialog } from '../components/propose';
import { Empty, ErrorMessage, Loading } from '../components/states';
import { relativeTime, shortJson } from '../lib/format';

export function FlagsScreen() {
  const { app, environment, appId, env, apps } = useCurrent();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [search, setSearch] = useState(q);
  /** Cursors of the pages before this one, so "Previous" goes back exactly. */
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const searchId = useId();

  // The search runs on the server a moment after typing stops.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (search !== q) {
        setCursors([]);
        setParams(search ? { q: search } : {}, { replace: true });
      }
    }, 250);
    return () => clearTimeout(timer);
  }, [search, q, setParams]);

  const flags = useQuery({ ...flagsPageQuery(appId, env, q, cursor), placeholderData: keepPreviousData });
  // The page the rows on screen belong to. While the next one loads the previous page stays shown
  // (keepPreviousData): its range stays with it, and the pager waits, so a second click cannot
  // follow the old page's cursor again.
  const shownPage = useRef(0);
  if (flags.data !== undefined && !flags.isPlaceholderData) shownPage.current = cursors.length;

  if (apps.isPending) return <Loading />;
  if (apps.isError) return <ErrorMessage error={apps.error} retry={() => void apps.refetch()} />;
  if (!app || !environment)
    return <ErrorMessage title="Not found" error={new Error(`No environment ${env} in this app.`)} />;

  const total = flags.data?.total ?? 0;
  const first = shownPage.current * FLAG_PAGE_SIZE;
  return (
    <section>
      <div className="title-row">
        <h1>
          Flags <span className="muted">in {environment.name}</span> <EnvironmentBadges environment={environment} />
        </h1>
        {canChange(app.role) && (
          <Link className="button button-primary" to={`/apps/${appId}/${env}/flags/new`}>
            New flag
          </Link>
        )}
      </div>
      <div className="toolbar" role="search">
        <label htmlFor={searchId} className="visually-hidden">
          Search flags
        </label>
        <input
          id={searchId}
          type="search"
          placeholder="Search by key or description"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          maxLength={128}
        />
        {flags.data && (
          <span className="muted" aria-live="polite">
            {total === 0
              ? 'No flags'
              : `${first + 1}–${first + flags.data.flags.length} of ${total.toLocaleString('en')} flag${total === 1 ? '' : 's'}`}{' '}
            · version {flags.data.version}
          </span>
        )}
      </div>
      {flags.isPending ? (
        <Loading label="Loading flags…" />
      ) : flags.isError ? (
        <ErrorMessage error={flags.error} retry={() => void flags.refetch()} />
      ) : flags.data.flags.length === 0 ? (
        q ? (
          <Empty title={`No flag matches “${q}”`}>Search looks in keys and descriptions, ignoring case.</Empty>
        ) : (
          <Empty title="No flags in this environment yet">
            {canChange(app.role) ? (
              <Link to={`/apps/${appId}/${env}/flags/new`}>Create the first flag</Link>
            ) : (
              'Ask an editor to create one.'
            )}
          </Empty>
        )
      ) : (
        <>
          <div className="table-scroll">
            <table className="table" aria-busy={flags.isFetching}>
              <caption className="visually-hidden">Flags in {environment.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">On</th>
                  <th scope="col">Type</th>
                  <th scope="col">Value</th>
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {flags.data.flags.map((flag) => (
                  <FlagRow
                    key={flag.key}
                    flag={flag}
                    version={flags.data.version}
                    appId={appId}
                    env={env}
                    environmentName={environment.name}
                    production={isProduction(environment)}
                    approvals={requiredApprovals(environment)}
                    editable={canChange(app.role)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <button
              type="button"
              className="button"
              disabled={cursors.length === 0 || flags.isPlaceholderData}
              onClick={() => setCursors((c) => c.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              className="button"
              disabled={flags.isPlaceholderData || !flags.data.nextCursor}
              onClick={() => setCursors((c) => [...c, flags.data.nextCursor!])}
            >
              Next page
            </button>
          </div>
        </>
      )}
    </section>
  );
}

function FlagRow({
  flag,
  version,
  appId,
  env,
  environmentName,
  production,
  approvals,
  editable,
}: {
  flag: FlagRecord;
  version: number;
  appId: string;
  env: string;
  environmentName: string;
  production: boolean;
  approvals: number;
  editable: boolean;
}) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [confirming, setConfirming] = useState(false);
  const [proposing, setProposing] = useState(false);
  const next = !flag.enabled;
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/flags', {
          body: { appId, env, key: flag.key, op: 'update', enabled: next, expectedVersion: version },
        }),
      ),
    onSuccess: async (answer) => {
      setConfirming(false);
      notify(
        `${flag.key} turned ${answer.flag.enabled ? 'on' : 'off'} in ${environmentName} (version ${answer.version}).`,
      );
      await queryClient.invalidateQueries({ queryKey: ['flags', appId, env] });
    },
  });
  const conflict = toggle.error instanceof ApiError && toggle.error.code === 'version_conflict';

  function onToggle() {
    if (approvals > 0) setProposing(true);
    else if (production) setConfirming(true);
    else toggle.mutate();
  }

  return (
    <tr>
      <th scope="row">
        <Link to={`/apps/${appId}/${env}/flags/${encodeURIComponent(flag.key)}`}>{flag.key}</Link>
        {flag.description && <div className="muted small">{flag.description}</div>}
      </th>
      <td>
        <Switch.Root
          className="switch"
          checked={flag.enabled}
          disabled={!editable || toggle.isPending}
          onCheckedChange={onToggle}
          aria-label={`${flag.key} is ${flag.enabled ? 'on' : 'off'}: turn ${next ? 'on' : 'off'}`}
        >
          <Switch.Thumb className="switch-thumb" />
        </Switch.Root>
        {toggle.isError && !confirming && (
          <div role="alert" className="error-text small">
            {conflict ? (
              <>
                Changed meanwhile.{' '}
                <button
                  type="button"
                  className="link"
                  onClick={() => {
                    toggle.reset();
                    void queryClient.invalidateQueries({ queryKey: ['flags', appId, env] });
                  }}
                >
                  Reload
                </button>
              </>
            ) : (
              (toggle.error as Error).message
            )}
          </div>
        )}
      </td>
      <td>{flag.type}</td>
      <td>
        <code>{shortJson(flag.enabled ? flag.value : flag.offValue, 40)}</code>
        {!flag.enabled && <span className="muted small"> (off value)</span>}
      </td>
      <td>
        <time dateTime={flag.updatedAt} title={flag.updatedAt}>
          {relativeTime(flag.updatedAt)}
        </time>
      </td>
      <Confirm
        open={confirming}
        onOpenChange={(o) => {
          setConfirming(o);
          if (!o) toggle.reset();
        }}
        title={`Turn ${flag.key} ${next ? 'on' : 'off'} in ${environmentName}?`}
        action={`Turn ${next ? 'on' : 'off'} in production`}
        onAction={() => toggle.mutate()}
        busy={toggle.isPending}
        danger={!next}
      >
        <p>
          {environmentName} is production:{' '}
          {next ? (
            'the flag starts serving its rules and value'
          ) : (
            <>
              every request gets the off value <code>{shortJson(flag.offValue)}</code>
            </>
          )}{' '}
          within a second.
        </p>
        {toggle.isError && (
          <ErrorMessage
            error={toggle.error}
            title={conflict ? 'The environment changed meanwhile: close and reload' : 'Not changed'}
          />
        )}
      </Confirm>
      {approvals > 0 && (
        <ProposeDialog
          open={proposing}
          onOpenChange={setProposing}
          appId={appId}
          env={env}
          approvals={approvals}
          baseVersion={version}
          change={{ kind: 'flag.patch', body: { key: flag.key, op: 'update', enabled: next } }}
          summary={
            <p>
              Turn <strong>{flag.key}</strong> {next ? 'on' : 'off'} in {environmentName}.
            </p>
          }
        />
      )}
    </tr>
  );
}
