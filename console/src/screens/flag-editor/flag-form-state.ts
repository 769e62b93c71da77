// The flag editor's form: its fields as text (what the inputs hold), read from a stored flag, and
// turned back into a flag body with the issues of what does not parse, found before any request.
import type { FlagRecord } from '../../api/hooks';
import type { FieldIssue } from '../../lib/pointers';

export type FlagType = FlagRecord['type'];
const JSON_FIELDS = ['rollout', 'variants', 'rules', 'overrides', 'dependencies', 'metadata'] as const;
export type JsonField = (typeof JSON_FIELDS)[number];
export const EDITOR_FIELDS = [
  'key',
  'type',
  'description',
  'enabled',
  'offValue',
  'value',
  'clientEnabled',
  ...JSON_FIELDS,
] as const;
export const ADVANCED_FIELDS = ['enabled', 'offValue', 'clientEnabled', 'description', ...JSON_FIELDS] as const;

export interface FormState {
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

export function formOf(flag: FlagRecord | null): FormState {
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
export function bodyOf(form: FormState): { fields: Record<string, unknown>; issues: Map<string, FieldIssue[]> } {
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
export function changedFields(flag: FlagRecord, fields: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (JSON.stringify(value) !== JSON.stringify((flag as unknown as Record<string, unknown>)[name]))
      changed[name] = value;
  }
  // A type change carries its value, as the API requires.
  if ('type' in changed) changed.value = fields.value;
  return changed;
}
