// The `date-time` format of an event's timestamp, checked once per event: ajv-formats' own check
// splits the string on a regular expression and runs two more with captures, allocating arrays and
// substrings that were a twelfth of what ingestion allocated per event. The common shape (what
// every SDK sends) is recognised here by one linear, capture-free expression and its numbers read
// from the characters; anything else, and anything this path would not accept outright (a leap
// second, say), is left to ajv-formats' function, so what is accepted never changes
// (timestamp-format.test.ts holds the two side by side).
import { fullFormats } from 'ajv-formats/dist/formats.js';

type FormatValidator = (value: string) => boolean;
const definition = fullFormats['date-time'] as { validate: FormatValidator } | FormatValidator;
const ajvFormatsDateTime: FormatValidator = typeof definition === 'function' ? definition : definition.validate;

/** 2026-11-27T09:15:00Z, with optional fraction and a Z or ±hh:mm offset. */
const COMMON = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const digits = (s: string, at: number, count: number) => {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
};

export function isDateTime(value: string): boolean {
  if (COMMON.test(value)) {
    const year = digits(value, 0, 4);
    const month = digits(value, 5, 2);
    const day = digits(value, 8, 2);
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    const dateValid = month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && leap ? 29 : DAYS[month]!);
    if (!dateValid) return false;
    // ±hh:mm ends the string when it does not end in Z.
    const sign = value.length - 6;
    const offsetValid =
      value.charCodeAt(value.length - 1) === 90 /* Z */ ||
      (digits(value, sign + 1, 2) <= 23 && digits(value, sign + 4, 2) <= 59);
    if (offsetValid && digits(value, 11, 2) <= 23 && digits(value, 14, 2) <= 59 && digits(value, 17, 2) <= 59)
      return true;
  }
  return ajvFormatsDateTime(value);
}
