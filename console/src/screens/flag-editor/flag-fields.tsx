// Every field of a flag in the editor: key and type, description, the switches, the values, and the
// JSON fields (rules, rollout, variants, overrides, prerequisites, metadata) with their help.
import type { Dispatch, SetStateAction } from 'react';
import type { FlagRecord } from '../../api/hooks';
import type { FieldIssue } from '../../lib/pointers';
import { Field, JsonField, SwitchField, ValueField } from './field-inputs';
import type { FlagType, FormState, JsonField as JsonFieldName } from './flag-form-state';

export function FlagFields({
  flag,
  form,
  setForm,
  issues,
}: {
  flag: FlagRecord | null;
  form: FormState;
  setForm: Dispatch<SetStateAction<FormState>>;
  issues: Map<string, FieldIssue[]>;
}) {
  const set = <K extends keyof FormState>(name: K, value: FormState[K]) => setForm((f) => ({ ...f, [name]: value }));
  const setJson = (name: JsonFieldName, value: string) =>
    setForm((f) => ({ ...f, json: { ...f.json, [name]: value } }));
  return (
    <>
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
        {(props) => <input {...props} value={form.description} onChange={(e) => set('description', e.target.value)} />}
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
          help={'null, or { "percentage": 25, "value": true }: subjects below the percentage get the rollout value.'}
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
    </>
  );
}
