// The structured diff of two composite states: one definition used by the journal (each applied
// change records it, redacted) and by GET /api/v1/config-versions/diff. It is deterministic — entries
// sorted by (resourceType, key, path) in code-unit order — so the same two states always give the
// same bytes, and an empty diff is exactly what "no-op" means for a mutation.
import type { Dependency } from '@ensign/engine';
import { canonicalJson } from '../../../platform/canonical-json.js';
import type { DiffEntry } from '../journal/index.js';
import type { ConfigState, FlagRecord } from './versions.model.js';

/** Bookkeeping fields of a flag record: they change with every write, so they are not a change. */
const RECORD_FIELDS = new Set(['createdAt', 'updatedAt']);

export interface DependencyChange {
  key: string;
  before: Dependency[];
  after: Dependency[];
}

export interface VisibilityChange {
  key: string;
  /** clientEnabled before and after; an absent flag counts as not visible. */
  before: boolean;
  after: boolean;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const unpointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function entry(
  op: DiffEntry['op'],
  resourceType: string,
  key: string,
  path: string,
  before: unknown,
  after: unknown,
): DiffEntry {
  return { op, resourceType, key, path, ...(op !== 'add' ? { before } : {}), ...(op !== 'remove' ? { after } : {}) };
}

/** Add, remove or change entries for every key of two maps whose values differ. */
function diffMap(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  make: (key: string) => { resourceType: string; key: string; path: string },
  out: DiffEntry[],
) {
  for (const k of unionKeys(a, b)) {
    const inA = has(a, k);
    const inB = has(b, k);
    if (inA && inB && same(a[k], b[k])) continue;
    const at = make(k);
    out.push(entry(inA && inB ? 'change' : inA ? 'remove' : 'add', at.resourceType, at.key, at.path, a[k], b[k]));
  }
}

function unionKeys(a: object, b: object): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}

export function definitionOf(record: FlagRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!RECORD_FIELDS.has(k)) out[k] = v;
  return out;
}

/** Per flag: the whole definition on add or remove; otherwise one entry per changed field, and one
 * per override subject (so a journal entry says which subject changed without naming it). */
function diffFlags(a: Record<string, FlagRecord>, b: Record<string, FlagRecord>, out: DiffEntry[]) {
  for (const key of unionKeys(a, b)) {
    const before = has(a, key) ? definitionOf(a[key]!) : undefined;
    const after = has(b, key) ? definitionOf(b[key]!) : undefined;
    if (!before || !after) {
      out.push(entry(before ? 'remove' : 'add', 'flag', key, '', before, after));
      continue;
    }
    for (const field of unionKeys(before, after)) {
      if (field === 'overrides') {
        const o = (before.overrides ?? {}) as Record<string, unknown>;
        const n = (after.overrides ?? {}) as Record<string, unknown>;
        diffMap(o, n, (subject) => ({ resourceType: 'flag', key, path: `/overrides/${pointer(subject)}` }), out);
      } else if (!same(before[field], after[field])) {
        out.push(
          entry(
            has(before, field) ? (has(after, field) ? 'change' : 'remove') : 'add',
            'flag',
            key,
            `/${pointer(field)}`,
            before[field],
            after[field],
          ),
        );
      }
    }
  }
}

/**
 * Every difference between two states. Flags are diffed as above; every other section (privacy,
 * settings, and whatever later modules add) is diffed field by field with the section as the
 * resource type and the field as the key.
 */
export function diffStates(before: ConfigState, after: ConfigState): DiffEntry[] {
  const out: DiffEntry[] = [];
  diffFlags(before.flags ?? {}, after.flags ?? {}, out);
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  for (const section of unionKeys(a, b)) {
    if (section === 'flags') continue;
    const x = a[section];
    const y = b[section];
    const objects = isObject(x) && isObject(y);
    if (objects) diffMap(x, y, (field) => ({ resourceType: section, key: field, path: '' }), out);
    else if (!same(x, y))
      out.push(entry(x === undefined ? 'add' : y === undefined ? 'remove' : 'change', 'state', section, '', x, y));
  }
  return out.sort(compareEntries);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
function compareEntries(x: DiffEntry, y: DiffEntry): number {
  return cmp(x.resourceType, y.resourceType) || cmp(x.key, y.key) || cmp(x.path, y.path);
}

/** Flags whose prerequisites differ (absent flags have none), sorted by key. */
export function dependencyChanges(before: ConfigState, after: ConfigState): DependencyChange[] {
  const out: DependencyChange[] = [];
  for (const key of unionKeys(before.flags, after.flags)) {
    const x = (has(before.flags, key) ? before.flags[key]!.dependencies : undefined) ?? [];
    const y = (has(after.flags, key) ? after.flags[key]!.dependencies : undefined) ?? [];
    if (!same(x, y)) out.push({ key, before: x, after: y });
  }
  return out;
}

/** Flags that became visible to or hidden from client (pub_) keys, sorted by key. */
export function visibilityChanges(before: ConfigState, after: ConfigState): VisibilityChange[] {
  const out: VisibilityChange[] = [];
  for (const key of unionKeys(before.flags, after.flags)) {
    const x = has(before.flags, key) ? before.flags[key]!.clientEnabled === true : false;
    const y = has(after.flags, key) ? after.flags[key]!.clientEnabled === true : false;
    if (x !== y) out.push({ key, before: x, after: y });
  }
  return out;
}

/**
 * The journal's copy of a diff: override subject keys (targeting keys of real people) replaced by
 * `hash(subject)`, in paths and inside whole-flag values, so entries stay comparable ("the same
 * subject changed twice") without naming anyone.
 */
export function redactSubjects(entries: DiffEntry[], hash: (subject: string) => string): DiffEntry[] {
  const redactFlag = (value: unknown) => {
    if (!isObject(value) || !isObject(value.overrides)) return value;
    const overrides: Record<string, unknown> = {};
    for (const [subject, v] of Object.entries(value.overrides)) overrides[hash(subject)] = v;
    return { ...value, overrides };
  };
  return entries.map((e) => {
    if (e.resourceType !== 'flag') return e;
    if (e.path.startsWith('/overrides/'))
      return { ...e, path: `/overrides/${hash(unpointer(e.path.slice('/overrides/'.length)))}` };
    if (e.path !== '') return e;
    return {
      ...e,
      ...(has(e, 'before') ? { before: redactFlag(e.before) } : {}),
      ...(has(e, 'after') ? { after: redactFlag(e.after) } : {}),
    };
  });
}
