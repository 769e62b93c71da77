import { describe, expect, test } from 'vitest';
import { bucketsBetween, intervalDomain, intervalReading, seriesByVariant } from './series';

describe('insight series', () => {
  const rows = [
    {
      bucketStart: '2026-11-01T01:00:00.000Z',
      dimensions: { variant: 'on' },
      measures: { exposures: 40, subjects: 30 },
    },
    {
      bucketStart: '2026-11-01T01:00:00.000Z',
      dimensions: { variant: 'off' },
      measures: { exposures: null, subjects: null },
    },
    {
      bucketStart: '2026-11-01T02:00:00.000Z',
      dimensions: { variant: 'off' },
      measures: { exposures: 25, subjects: 21 },
    },
  ];

  test('a suppressed cell stays suppressed (null), a bucket without a row is a true zero', () => {
    const { buckets, series } = seriesByVariant(rows, 'exposures');
    expect(buckets).toEqual(['2026-11-01T01:00:00.000Z', '2026-11-01T02:00:00.000Z']);
    const off = series.find((s) => s.variant === 'off')!;
    expect(off.points.map((p) => [p.value, p.suppressed])).toEqual([
      [null, true],
      [25, false],
    ]);
    const on = series.find((s) => s.variant === 'on')!;
    expect(on.points.map((p) => [p.value, p.suppressed])).toEqual([
      [40, false],
      [0, false],
    ]);
  });

  test('the window gives every bucket, so hours without events are drawn', () => {
    expect(bucketsBetween('2026-11-01T00:30:00Z', '2026-11-01T03:00:00Z', 'hour')).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T01:00:00.000Z',
      '2026-11-01T02:00:00.000Z',
    ]);
    const { buckets } = seriesByVariant(rows, 'exposures', {
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-01T04:00:00.000Z',
      grain: 'hour',
    });
    expect(buckets).toHaveLength(4);
    expect(bucketsBetween('2026-11-01T00:00:00Z', '2026-11-04T00:00:00Z', 'day')).toHaveLength(3);
  });

  test('intervals are drawn against zero: the domain holds zero and every end', () => {
    const [lo, hi] = intervalDomain([
      [0.1, 0.5],
      [0.2, 0.3],
    ]);
    expect(lo).toBeLessThanOrEqual(0);
    expect(hi).toBeGreaterThanOrEqual(0.5);
    expect(intervalDomain([])).toEqual([-1, 1]);
    expect(intervalReading([0.1, 0.5])).toBe('above zero');
    expect(intervalReading([-0.5, -0.1])).toBe('below zero');
    expect(intervalReading([-0.1, 0.2])).toBe('includes zero');
  });
});
