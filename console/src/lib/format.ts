// Plain formatting shared by the screens (pure: unit-tested in format.test.ts).

/** A JSON value in one short line: strings quoted, long values cut with an ellipsis. */
export function shortJson(value: unknown, max = 60): string {
  if (value === undefined) return '—';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "3 minutes ago", "in 2 days", "just now" from an RFC 3339 time and the present. */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return iso;
  const abs = Math.abs(ms);
  if (abs < 45_000) return 'just now';
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 31_536_000_000],
    ['month', 2_592_000_000],
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  const [unit, size] = units.find(([, s]) => abs >= s) ?? ['minute', 60_000];
  return new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(Math.round(ms / size), unit);
}

export function dateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ' UTC');
}

/** A percentage with at most two decimals: 0.0512 → "5.12 %". */
export function percent(fraction: number, digits = 2): string {
  return `${(fraction * 100).toFixed(digits).replace(/\.?0+$/, '')} %`;
}

/** A number for a table: integers with separators, others to four significant digits. */
export function number(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (Number.isInteger(value)) return value.toLocaleString('en');
  return Number(value.toPrecision(4)).toLocaleString('en', { maximumFractionDigits: 6 });
}

/** Who made a change, from a journal or version authority. */
export function authorityLabel(
  authority: { type: string; userId?: string | null; keyFingerprint?: string | null } | null | undefined,
  users: Record<string, string> = {},
): string {
  if (!authority) return 'unknown';
  if (authority.type === 'user') return authority.userId ? (users[authority.userId] ?? authority.userId) : 'a user';
  if (authority.type === 'admin_key') return `admin key ${authority.keyFingerprint ?? ''}`.trim();
  return authority.type;
}
