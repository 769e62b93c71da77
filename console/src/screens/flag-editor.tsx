// The flag editor: every field of a flag, the server's validation issues at the field their JSON
// pointer names, an impact preview (POST /api/v1/advanced-config/impact) before saving, and a
// compare-and-swap conflict explained with a reload. In a protected environment saving proposes.
import * as Switch from '@radix-ui/react-switch';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, api, unwrap } from '../api/client';
import { fetchFlag } from '../api/flag';
import { canChange, requiredApprovals, useCurrent, type FlagRecord } from '../api/hooks';
import { DiffTable } from '../components/diff-table';
import { Modal } from '../components/dialogs';
import { EnvironmentBadges } from '../components/layout';
import { useNotify } from '../components/notices';
import { useProposal } from '../components/propose';
import { ErrorMessage, Loading } from '../components/states';
import { issuesByField, type FieldIssue } from '../lib/pointers';
import { dateTime } from '../lib/format';

type FlagType = FlagRecord['type'];
const JSON_FIELDS = ['rollout', 'variants', 'rules', 'overrides', 'dependencies', 'metadata'] as const;
type JsonField = (typeof JSON_FIELDS)[number];
const EDITOR_FIELDS = [
  'key',
  'type',
  'description',
  'enabled',
  'offValue',
  'value',
  'clientEnabled',
  ...JSON_FIELDS,
] as const;
const ADVANCED_FIELDS = ['enabled', 'offValue', 'clientEnabled', 'description', ...JSON_FIELDS] as const;

interface FormState {
  key: string;
  type: FlagType;
  description: string;
  enabled: boolean;
  clientEnabled: boolean;
  value: string;
  offValue: string;
  json: Record<JsonField, string>;
}

const DEFAULTS: Record<JsonField, unknown> = {
  rollout: null,
  variants: null,
  rules: [],
  overrides: {},
  dependencies: [],
  metadata: {},
};

function valueText(type: FlagType, value: unknown): string {
  if (type === 'string') return typeof value === 'string' ? value : '';
  if (type === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

function formOf(flag: FlagRecord | null): FormState {
  if (!flag) {
    return {
      key: '',
      type: 'bool',
      description: '',
      enabled: true,
      clientEnabled: false,
      value: 'false',
      offValue: 'false',
      json: Object.fromEntries(JSON_FIELDS.map((f) => [f, JSON.stringify(DEFAULTS[f], null, 2)])) as Record<
        JsonField,
        string
      >,
    };
  }
  return {
    key: flag.key,
    type: flag.type,
    description: flag.description,
    enabled: flag.enabled,
    clientEnabled: flag.clientEnabled,
    value: valueText(flag.type, flag.value),
    offValue: valueText(flag.type, flag.offValue),
    json: Object.fromEntries(JSON_FIELDS.map((f) => [f, JSON.stringify(flag[f] ?? DEFAULTS[f], null, 2)])) as Record<
      JsonField,
      string
    >,
  };
}

/** The typed value of a value input, or an issue for that field. */
function parseValue(type: FlagType, text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (type === 'string') return { ok: true, value: text };
  if (type === 'bool')
    return text === 'true' || text === 'false'
      ? { ok: true, value: text === 'true' }
      : { ok: false, message: 'must be true or false' };
  if (type === 'number') {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n)
      ? { ok: true, value: n }
      : { ok: false, message: 'must be a finite number' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: 'is not valid JSON' };
  }
}

/** The fields of the form as a flag body, or the local issues (unparsable JSON) by field. */
function bodyOf(form: FormState): { fields: Record<string, unknown>; issues: Map<string, FieldIssue[]> } {
  const issues = new Map<string, FieldIssue[]>();
  const fields: Record<string, unknown> = {
    type: form.type,
    description: form.description,
    enabled: form.enabled,
    clientEnabled: form.clientEnabled,
  };
  for (const name of ['value', 'offValue'] as const) {
    const parsed = parseValue(form.type, form[name]);
    if (parsed.ok) fields[name] = parsed.value;
    else issues.set(name, [{ field: name, where: '', message: parsed.message }]);
  }
  for (const name of JSON_FIELDS) {
    try {
      fields[name] = JSON.parse(form.json[name]);
    } catch {
      issues.set(name, [{ field: name, where: '', message: 'is not valid JSON' }]);
    }
  }
  return { fields, issues };
}

/** Only what differs from the stored flag: a partial update replaces exactly those fields. */
function changedFields(flag: FlagRecord, fields: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (JSON.stringify(value) !== JSON.stringify((flag as unknown as Record<string, unknown>)[name]))
      changed[name] = value;
  }
  // A type change carries its value, as the API requires.
  if ('type' in changed) changed.value = fields.value;
  return changed;
}

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
  const [issues, setIssues] = useState<Map<string, FieldIssue[]>>(new Map());
  const [reviewing, setReviewing] = useState(false);
  const [reason, setReason] = useState('');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const protectedEnv = approvals > 0;
  const key = flag?.key ?? form.key;

  const showServerIssues = (error: unknown) => {
    if (error instanceof ApiError && error.body.details?.length)
      setIssues(issuesByField(error.body.details, key, EDITOR_FIELDS));
  };

  const impact = useMutation({
    mutationFn: (changed: Record<string, unknown>) => {
      const { value, type: _type, ...rest } = changed;
      const advanced = Object.fromEntries(
        Object.entries(rest).filter(([name]) => (ADVANCED_FIELDS as readonly string[]).includes(name)),
      );
      return unwrap(
        api.POST('/api/v1/advanced-config/impact', {
          body: {
            appId,
            env,
            changes: {
              ...(value !== undefined ? { flags: { [key]: value } } : {}),
              ...(Object.keys(advanced).length ? { advanced: { flags: { [key]: advanced } } } : {}),
            },
          },
        }),
      );
    },
    onError: showServerIssues,
  });

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      unwrap(api.PATCH('/api/v1/flags', { body: { appId, env, ...body } as never })),
    onSuccess: async (answer) => {
      setReviewing(false);
      notify(
        answer.changeId
          ? `${answer.flag.key} saved: version ${answer.version}.`
          : `${answer.flag.key}: nothing changed.`,
      );
      await queryClient.invalidateQueries({ queryKey: ['flags', appId, env] });
      await queryClient.invalidateQueries({ queryKey: ['flag', appId, env] });
      navigate(`/apps/${appId}/${env}/flags/${encodeURIComponent(answer.flag.key)}`, { replace: true });
    },
    onError: (error) => {
      showServerIssues(error);
      if (!(error instanceof ApiError && error.code === 'version_conflict')) setReviewing(false);
    },
  });

  const propose = useProposal(appId, env);
  useEffect(() => {
    if (propose.isError) showServerIssues(propose.error);
  }, [propose.isError]);

  const conflict = [save.error, propose.error].find(
    (e) => e instanceof ApiError && (e.code === 'version_conflict' || e.code === 'stale_proposal'),
  ) as ApiError | undefined;

  function prepared(): { body: Record<string, unknown>; changed: Record<string, unknown> } | null {
    const { fields, issues: local } = bodyOf(form);
    setIssues(local);
    if (local.size > 0) return null;
    if (!flag) return { body: { key: form.key, op: 'create', ...fields }, changed: fields };
    const changed = changedFields(flag, fields);
    return { body: { key: flag.key, op: 'update', expectedVersion: version, ...changed }, changed };
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const ready = prepared();
    if (!ready) return;
    save.reset();
    propose.reset();
    if (!flag) {
      // A new flag affects nobody until it is read: created (or proposed) directly.
      if (protectedEnv) setReviewing(true);
      else save.mutate(ready.body);
      return;
    }
    if (Object.keys(ready.changed).length === 0) {
      notify('Nothing to save: the form equals the stored flag.');
      return;
    }
    impact.reset();
    setReviewing(true);
    if (!('type' in ready.changed)) impact.mutate(ready.changed);
  }

  function confirm() {
    const ready = prepared();
    if (!ready) return;
    if (protectedEnv) {
      const { expectedVersion: _v, ...body } = ready.body;
      propose.mutate({
        baseVersion: version ?? 0,
        change: { kind: 'flag.patch', body: body as never },
        reason: reason || undefined,
      });
    } else {
      save.mutate(ready.body);
    }
  }

  const set = <K extends keyof FormState>(name: K, value: FormState[K]) => setForm((f) => ({ ...f, [name]: value }));
  const setJson = (name: JsonField, value: string) => setForm((f) => ({ ...f, json: { ...f.json, [name]: value } }));
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
          <button
            type="button"
            className="button"
            onClick={() => {
              save.reset();
              propose.reset();
              setReviewing(false);
              reload();
            }}
          >
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
          <div className="grid-2">
            <Field
              name="key"
              label="Key"
              issues={issues}
              help="Letters, digits and . _ - : (up to 128), starting with a letter or digit."
            >
              {(props) => (
                <input
                  {...props}
                  required
                  readOnly={!!flag}
                  value={form.key}
                  onChange={(e) => set('key', e.target.value)}
                />
              )}
            </Field>
            <Field
              name="type"
              label="Type"
              issues={issues}
              help={
                flag
                  ? 'Changing the type needs a value of the new type (and every rule, variant and override to fit it).'
                  : undefined
              }
            >
              {(props) => (
                <select
                  {...props}
                  value={form.type}
                  onChange={(e) => {
                    const type = e.target.value as FlagType;
                    const blank = type === 'bool' ? 'false' : type === 'number' ? '0' : type === 'json' ? '{}' : '';
                    setForm((f) => ({ ...f, type, value: blank, offValue: blank }));
                  }}
                >
                  <option value="bool">bool</option>
                  <option value="string">string</option>
                  <option value="number">number</option>
                  <option value="json">json</option>
                </select>
              )}
            </Field>
          </div>
          <Field name="description" label="Description" issues={issues}>
            {(props) => (
              <input {...props} value={form.description} onChange={(e) => set('description', e.target.value)} />
            )}
          </Field>
          <div className="grid-2">
            <SwitchField
              name="enabled"
              label="Enabled"
              help="Off: every rule, override, rollout and variant is skipped and the off value is served."
              checked={form.enabled}
              onChange={(v) => set('enabled', v)}
              issues={issues}
            />
            <SwitchField
              name="clientEnabled"
              label="Visible to client keys (pub_)"
              help="Client-side SDKs and OFREP with a public key see this flag."
              checked={form.clientEnabled}
              onChange={(v) => set('clientEnabled', v)}
              issues={issues}
            />
          </div>
          <div className="grid-2">
            <ValueField
              name="value"
              label="Value"
              type={form.type}
              text={form.value}
              onChange={(v) => set('value', v)}
              issues={issues}
              help="Served when no override, rule, rollout or variant applies."
            />
            <ValueField
              name="offValue"
              label="Off value"
              type={form.type}
              text={form.offValue}
              onChange={(v) => set('offValue', v)}
              issues={issues}
              help="Served while the flag is disabled."
            />
          </div>
          <JsonField
            name="rules"
            label="Rules"
            issues={issues}
            text={form.json.rules}
            onChange={(v) => setJson('rules', v)}
            rows={8}
            help={
              'Ordered; the first rule whose conditions all hold serves. [{ "id": "beta", "conditions": [{ "attribute": "plan", "operator": "in", "values": ["beta"] }], "serve": { "value": true } }]'
            }
          />
          <div className="grid-2">
            <JsonField
              name="rollout"
              label="Rollout"
              issues={issues}
              text={form.json.rollout}
              onChange={(v) => setJson('rollout', v)}
              help={
                'null, or { "percentage": 25, "value": true }: subjects below the percentage get the rollout value.'
              }
            />
            <JsonField
              name="variants"
              label="Variants"
              issues={issues}
              text={form.json.variants}
              onChange={(v) => setJson('variants', v)}
              help={
                'null, or [{ "key": "a", "value": …, "weight": 50 }, …] with weights summing to 100. Not with a rollout.'
              }
            />
          </div>
          <div className="grid-2">
            <JsonField
              name="overrides"
              label="Overrides"
              issues={issues}
              text={form.json.overrides}
              onChange={(v) => setJson('overrides', v)}
              help={'{ "<targetingKey>": value }: checked before the rules.'}
            />
            <JsonField
              name="dependencies"
              label="Prerequisites"
              issues={issues}
              text={form.json.dependencies}
              onChange={(v) => setJson('dependencies', v)}
              help={
                '[{ "flag": "other-flag", "value": true }]: served only while each prerequisite evaluates to its value.'
              }
            />
          </div>
          <JsonField
            name="metadata"
            label="Metadata"
            issues={issues}
            text={form.json.metadata}
            onChange={(v) => setJson('metadata', v)}
            rows={3}
            help="A JSON object (at most 4 KiB), never sent to client keys."
          />
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

      <Modal
        open={reviewing}
        onOpenChange={(open) => {
          setReviewing(open);
          if (!open) {
            save.reset();
            propose.reset();
          }
        }}
        wide
        title={flag ? `Review the change to ${flag.key}` : `Propose ${form.key}`}
        description={
          protectedEnv
            ? `${environmentName} is protected: the change will wait for ${approvals} approval${approvals === 1 ? '' : 's'}.`
            : 'What saving would change, computed by the server before anything is applied.'
        }
      >
        {flag &&
          (impact.isPending ? (
            <Loading label="Computing the impact…" />
          ) : impact.isError ? (
            <ErrorMessage error={impact.error} title="The change is not valid: see the fields" />
          ) : impact.data ? (
            <div>
              <h3>Affected flags</h3>
              <ul>
                {impact.data.affectedFlags.map((a) => (
                  <li key={a.key}>
                    <code>{a.key}</code>: {a.reasons.join(', ')}
                  </li>
                ))}
              </ul>
              {(impact.data.visibility.becomeVisible.length > 0 || impact.data.visibility.becomeHidden.length > 0) && (
                <p>
                  Client keys: {impact.data.visibility.becomeVisible.map((v) => v.key).join(', ') || 'none'} become
                  visible; {impact.data.visibility.becomeHidden.map((v) => v.key).join(', ') || 'none'} become hidden.
                </p>
              )}
              <h3>Changes</h3>
              <DiffTable changes={impact.data.changes} caption="Changes the save would make" />
            </div>
          ) : (
            <p className="muted">A type change cannot be previewed: it is checked as a whole when saved.</p>
          ))}
        {protectedEnv && (
          <label className="field">
            <span>Reason (optional)</span>
            <textarea rows={2} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
        )}
        {(save.isError || propose.isError) && (
          <ErrorMessage
            error={save.error ?? propose.error}
            title={conflict ? 'Someone changed the environment meanwhile: nothing was saved' : 'Not saved'}
            retry={
              conflict
                ? () => {
                    save.reset();
                    propose.reset();
                    setReviewing(false);
                    reload();
                  }
                : undefined
            }
            retryLabel="Reload the flag"
          />
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => setReviewing(false)}>
            Back to editing
          </button>
          <button
            type="button"
            className="button button-primary"
            disabled={save.isPending || propose.isPending || impact.isPending || impact.isError || !!conflict}
            onClick={confirm}
          >
            {protectedEnv ? (propose.isPending ? 'Proposing…' : 'Propose') : save.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </Modal>
    </section>
  );
}

interface FieldProps {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

function IssueList({ id, issues }: { id: string; issues: FieldIssue[] }) {
  return (
    <div id={id} role="alert">
      <ul className="field-issues">
        {issues.map((issue, i) => (
          <li key={i}>
            {issue.where && <code>{issue.where}</code>} {issue.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Field({
  name,
  label,
  help,
  issues,
  children,
}: {
  name: string;
  label: string;
  help?: string;
  issues: Map<string, FieldIssue[]>;
  children: (props: FieldProps) => ReactNode;
}) {
  const id = `field-${name}`;
  const own = issues.get(name) ?? [];
  const describedBy =
    [help ? `${id}-help` : '', own.length ? `${id}-issues` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={own.length ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': own.length > 0 || undefined, 'aria-describedby': describedBy })}
      {help && (
        <small id={`${id}-help`} className="muted">
          {help}
        </small>
      )}
      {own.length > 0 && <IssueList id={`${id}-issues`} issues={own} />}
    </div>
  );
}

function SwitchField({
  name,
  label,
  help,
  checked,
  onChange,
  issues,
}: {
  name: string;
  label: string;
  help: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  issues: Map<string, FieldIssue[]>;
}) {
  return (
    <Field name={name} label={label} help={help} issues={issues}>
      {(props) => (
        <Switch.Root {...props} className="switch" checked={checked} onCheckedChange={onChange}>
          <Switch.Thumb className="switch-thumb" />
        </Switch.Root>
      )}
    </Field>
  );
}

function ValueField({
  name,
  label,
  type,
  text,
  onChange,
  issues,
  help,
}: {
  name: string;
  label: string;
  type: FlagType;
  text: string;
  onChange: (v: string) => void;
  issues: Map<string, FieldIssue[]>;
  help: string;
}) {
  return (
    <Field name={name} label={`${label} (${type})`} help={help} issues={issues}>
      {(props) =>
        type === 'bool' ? (
          <select {...props} value={text} onChange={(e) => onChange(e.target.value)}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : type === 'number' ? (
          <input {...props} inputMode="decimal" value={text} onChange={(e) => onChange(e.target.value)} />
        ) : type === 'string' ? (
          <input {...props} value={text} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <textarea
            {...props}
            className="code"
            rows={4}
            spellCheck={false}
            value={text}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}

function JsonField({
  name,
  label,
  help,
  text,
  onChange,
  issues,
  rows = 5,
}: {
  name: string;
  label: string;
  help: string;
  text: string;
  onChange: (v: string) => void;
  issues: Map<string, FieldIssue[]>;
  rows?: number;
}) {
  return (
    <Field name={name} label={`${label} (JSON)`} help={help} issues={issues}>
      {(props) => (
        <textarea
          {...props}
          className="code"
          rows={rows}
          spellCheck={false}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}
