// Server validation issues carry JSON pointers into the request body; the flag editor shows each at
// the field the pointer names (pure: unit-tested in pointers.test.ts).

/** Decodes one JSON pointer into its tokens: "/rules/0/values" → ["rules", "0", "values"]. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Removes the part of a pointer that addresses the flag inside a wrapping request, so every write
 * path maps onto the editor's fields: PATCH /flags (`/rules/0`), impact (`/changes/advanced/flags/<key>/rules/0`,
 * `/changes/flags/<key>` for the value), a proposal (`/change/body/rules/0`).
 */
export function flagRelativePointer(pointer: string, key: string): string {
  const tokens = pointerTokens(pointer);
  const strip = (prefix: string[]) => (prefix.every((t, i) => tokens[i] === t) ? tokens.slice(prefix.length) : null);
  const rest =
    strip(['changes', 'advanced', 'flags', key]) ??
    (strip(['changes', 'flags', key]) !== null ? ['value', ...strip(['changes', 'flags', key])!] : null) ??
    strip(['change', 'body']) ??
    tokens;
  return rest.length === 0 ? '' : `/${rest.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

export interface FieldIssue {
  field: string;
  /** Where inside the field, readable ("rules[0].conditions[1].operator"), or '' for the field itself. */
  where: string;
  message: string;
}

/**
 * Assigns each issue to the first of `fields` its pointer starts with (the editor's field names,
 * which are top-level body members), or to '' (the form as a whole) when none matches.
 */
export function issuesByField(
  details: { path: string; message: string }[],
  key: string,
  fields: readonly string[],
): Map<string, FieldIssue[]> {
  const out = new Map<string, FieldIssue[]>();
  for (const detail of details) {
    const tokens = pointerTokens(flagRelativePointer(detail.path, key));
    const field = tokens.length > 0 && fields.includes(tokens[0]!) ? tokens[0]! : '';
    const inner = field === '' ? tokens : tokens.slice(1);
    const where = inner
      .map((t) => (/^\d+$/.test(t) ? `[${t}]` : `.${t}`))
      .join('')
      .replace(/^\./, '');
    const issue: FieldIssue = { field, where: field === '' ? detail.path : where, message: detail.message };
    out.set(field, [...(out.get(field) ?? []), issue]);
  }
  return out;
}
