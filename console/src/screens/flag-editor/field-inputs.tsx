// The editor's labelled inputs: each shows its help and the issues found at its field (the server's,
// by JSON pointer, or the form's own), wired for screen readers with aria-describedby.
import * as Switch from '@radix-ui/react-switch';
import type { ReactNode } from 'react';
import type { FieldIssue } from '../../lib/pointers';
import type { FlagType } from './flag-form-state';

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

export function Field({
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

export function SwitchField({
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

export function ValueField({
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

export function JsonField({
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
