// The flag editor: every field of a flag, the server's validation issues at the field their JSON
// pointer names, an impact preview (POST /api/v1/advanced-config/impact) before saving, and a
// compare-and-swap conflict explained with a reload. In a protected environment saving proposes.
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { fetchFlag } from '../api/flag';
import { canChange, requiredApprovals, useCurrent, type FlagRecord } from '../api/hooks';
import { EnvironmentBadges } from '../components/layout';
import { ErrorMessage, Loading } from '../components/states';
import { dateTime } from '../lib/format';
import { FlagFields } from './flag-editor/flag-fields';
import { formOf, type FormState } from './flag-editor/flag-form-state';
import { ReviewDialog } from './flag-editor/review-dialog';
import { useFlagSave } from './flag-editor/use-flag-save';

export function FlagEditorScreen() {
  const { flagKey } = useParams();
  const { app, environment, appId, env, apps } = useCurrent();
  const isNew = flagKey === undefined;
  const flag = useQuery({
    queryKey: ['flag', appId, env, flagKey],
    queryFn: () => fetchFlag(appId, env, flagKey!),
    enabled: !isNew,
  });
  if (apps.isPending || (!isNew && flag.isPending)) return <Loading label="Loading the flag…" />;
  if (apps.isError) return <ErrorMessage error={apps.error} retry={() => void apps.refetch()} />;
  if (!app || !environment)
    return <ErrorMessage title="Not found" error={new Error(`No environment ${env} in this app.`)} />;
  if (!isNew && flag.isError) return <ErrorMessage error={flag.error} retry={() => void flag.refetch()} />;
  if (!isNew && !flag.data?.flag) {
    return (
      <section>
        <h1>{flagKey}</h1>
        <ErrorMessage title="No such flag" error={new Error(`${environment.name} has no flag ${flagKey}.`)} />
        <Link to={`/apps/${appId}/${env}/flags`}>Back to the flags</Link>
      </section>
    );
  }
  return (
    <FlagForm
      key={`${flagKey}:${flag.data?.version ?? 'new'}`}
      appId={appId}
      env={env}
      environmentName={environment.name}
      approvals={requiredApprovals(environment)}
      badges={<EnvironmentBadges environment={environment} />}
      editable={canChange(app.role)}
      flag={flag.data?.flag ?? null}
      version={flag.data?.version ?? null}
      reload={() => void flag.refetch()}
    />
  );
}

function FlagForm({
  appId,
  env,
  environmentName,
  approvals,
  badges,
  editable,
  flag,
  version,
  reload,
}: {
  appId: string;
  env: string;
  environmentName: string;
  approvals: number;
  badges: ReactNode;
  editable: boolean;
  flag: FlagRecord | null;
  version: number | null;
  reload: () => void;
}) {
  const [form, setForm] = useState<FormState>(() => formOf(flag));
  const saving = useFlagSave({ appId, env, approvals, flag, version, form, reload });
  const { issues, protectedEnv, save, conflict, submit, reloadFlag } = saving;
  const formIssues = issues.get('') ?? [];

  return (
    <section>
      <p>
        <Link to={`/apps/${appId}/${env}/flags`}>← Flags in {environmentName}</Link>
      </p>
      <h1>
        {flag ? flag.key : 'New flag'} <span className="muted">in {environmentName}</span> {badges}
      </h1>
      {flag && (
        <p className="muted small">
          Created {dateTime(flag.createdAt)} · last changed {dateTime(flag.updatedAt)} · environment version {version}
        </p>
      )}
      {conflict && (
        <div className="state state-error" role="alert">
          <p className="state-title">Someone changed {environmentName} while you were editing</p>
          <p>
            It is now at version {String(conflict.body.metadata?.currentVersion ?? 'newer')}, you started from version{' '}
            {version}. Nothing was saved. Reload to see the current flag, then make your change again.
          </p>
          <button type="button" className="button" onClick={reloadFlag}>
            Reload the flag
          </button>
        </div>
      )}
      <form className="form editor" onSubmit={submit} aria-describedby={formIssues.length ? 'form-issues' : undefined}>
        <fieldset disabled={!editable}>
          {!editable && <p className="muted">You can read this flag; changing it needs the editor or owner role.</p>}
          {formIssues.length > 0 && (
            <div id="form-issues" className="state state-error" role="alert">
              {formIssues.map((issue, i) => (
                <p key={i}>
                  <code>{issue.where}</code> {issue.message}
                </p>
              ))}
            </div>
          )}
          <FlagFields flag={flag} form={form} setForm={setForm} issues={issues} />
          {save.isError && !conflict && !(save.error instanceof ApiError && save.error.body.details?.length) && (
            <ErrorMessage error={save.error} title="Not saved" />
          )}
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              {flag
                ? protectedEnv
                  ? 'Review and propose'
                  : 'Review and save'
                : protectedEnv
                  ? 'Propose flag'
                  : 'Create flag'}
            </button>
            <Link className="button" to={`/apps/${appId}/${env}/flags`}>
              Cancel
            </Link>
          </div>
        </fieldset>
      </form>

      <ReviewDialog
        flag={flag}
        formKey={form.key}
        environmentName={environmentName}
        approvals={approvals}
        saving={saving}
      />
    </section>
  );
}
