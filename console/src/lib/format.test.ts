import { describe, expect, test } from 'vitest';
import { evaluateCurl, shellQuote } from './curl';
import { authorityLabel, number, percent, relativeTime, shortJson } from './format';

describe('formatting', () => {
  test('short JSON, numbers and percentages', () => {
    expect(shortJson('on')).toBe('"on"');
    expect(shortJson({ a: 'x'.repeat(100) }, 20)).toHaveLength(20);
    expect(shortJson(undefined)).toBe('—');
    expect(number(12345)).toBe('12,345');
    expect(number(0.123456)).toBe('0.1235');
    expect(number(null)).toBe('—');
    expect(percent(0.0512)).toBe('5.12 %');
    expect(percent(0.5, 1)).toBe('50 %');
  });

  test('relative times', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(relativeTime('2026-11-22T09:59:50Z', now)).toBe('just now');
    expect(relativeTime('2026-11-22T09:57:00Z', now)).toBe('3 minutes ago');
    expect(relativeTime('2026-11-20T10:00:00Z', now)).toBe('2 days ago');
  });

  test('who made a change', () => {
    expect(authorityLabel({ type: 'user', userId: 'usr_1' }, { usr_1: 'ada@example.com' })).toBe('ada@example.com');
    expect(authorityLabel({ type: 'admin_key', keyFingerprint: 'ab12' })).toBe('admin key ab12');
    expect(authorityLabel({ type: 'system' })).toBe('system');
  });
});

describe('copy as curl', () => {
  test('quotes for a POSIX shell, and leaves the key to an environment variable', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const curl = evaluateCurl('http://127.0.0.1:8080', { flagKey: 'a', context: { name: "O'Hara" } });
    expect(curl).toContain(`-X POST 'http://127.0.0.1:8080/api/v1/evaluate'`);
    expect(curl).toContain('Authorization: Bearer $ENSIGN_SDK_KEY');
    expect(curl).toContain(`-d '{"flagKey":"a","context":{"name":"O'\\''Hara"}}'`);
  });
});
