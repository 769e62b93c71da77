// Strict RFC 3339 date-time parsing for the `before` and `after` operators. Date.parse alone is
// too lenient (it accepts "2024-02-30", bare dates and local times), and a condition that silently
// compares against the wrong instant is worse than one rejected at validation time.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Epoch milliseconds of an RFC 3339 date-time, or NaN when `text` is not one. Fractions beyond
 * milliseconds are truncated; a leap second (:60) rolls into the next minute. */
export function parseRfc3339(text: string): number {
  const m = RFC3339.exec(text);
  if (m === null) return NaN;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return NaN;
  if (hour > 23 || minute > 59 || second > 60) return NaN;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHour = Number(m[10]);
    const offsetMinute = Number(m[11]);
    if (offsetHour > 23 || offsetMinute > 59) return NaN;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(1, 4).padEnd(3, '0'));
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0..99 to 1900..1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetMinutes * 60_000;
}

export function isRfc3339(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(parseRfc3339(value));
}

function daysIn(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap ? 29 : 28;
}

/** Instant of a context attribute for `before`/`after`: an RFC 3339 string, epoch milliseconds,
 * or a Date (SDK callers). Anything else is NaN, which compares false both ways. */
export function instantOf(value: unknown): number {
  if (typeof value === 'string') return parseRfc3339(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : NaN;
  if (value instanceof Date) return value.getTime();
  return NaN;
}
