import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAgo, formatBytes, formatCount, formatDateTime, formatDuration, formatPercent, formatPlain, formatScore, formatWait } from '../../../../renderer/src/lib/format.ts';

describe('renderer number formats', () => {
  test('counts are grouped by thousands, plain figures are not', () => {
    assert.equal(formatCount(0), '0');
    assert.equal(formatCount(1234567), '1,234,567');
    assert.equal(formatPlain(1234567, 0), '1234567');
    assert.equal(formatPlain(0.41234, 3), '0.412');
    assert.equal(formatPlain(Number.NaN, 1), '0');
  });

  test('percentages and scores keep their decimals; null is a dash', () => {
    assert.equal(formatPercent(0.41234), '41.2%');
    assert.equal(formatPercent(0.05, 0), '5%');
    assert.equal(formatPercent(null), '–');
    assert.equal(formatScore(0.123456), '0.123');
    assert.equal(formatScore(-2.5), '-2.500');
    assert.equal(formatScore(null), '–');
  });

  test('bytes use decimal units with one decimal below ten', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(999), '999 B');
    assert.equal(formatBytes(1500), '1.5 kB');
    assert.equal(formatBytes(25_400), '25 kB');
    assert.equal(formatBytes(3_200_000), '3.2 MB');
    assert.equal(formatBytes(1_100_000_000), '1.1 GB');
  });

  test('durations read as seconds, minutes and hours', () => {
    assert.equal(formatDuration(45_000), '45 s');
    assert.equal(formatDuration(185_000), '3 min 5 s');
    assert.equal(formatDuration(120_000), '2 min');
    assert.equal(formatDuration(7_380_000), '2 h 3 min');
    assert.equal(formatDuration(-5), '0 s');
  });
});

describe('renderer relative times', () => {
  const now = Date.parse('2025-03-01T12:00:00.000Z');

  test('ago is coarse and says never for null', () => {
    assert.equal(formatAgo(null, now), 'never');
    assert.equal(formatAgo('2025-03-01T11:59:58.000Z', now), 'just now');
    assert.equal(formatAgo('2025-03-01T11:59:30.000Z', now), '30 s ago');
    assert.equal(formatAgo('2025-03-01T11:57:00.000Z', now), '3 min ago');
    assert.equal(formatAgo('2025-03-01T09:00:00.000Z', now), '3 h ago');
    assert.equal(formatAgo('2025-02-25T12:00:00.000Z', now), '4 days ago');
    assert.equal(formatAgo('not a date', now), 'unknown');
  });

  test('wait is now when the time has passed, else how long', () => {
    assert.equal(formatWait(null, now), 'now');
    assert.equal(formatWait('2025-03-01T11:59:59.000Z', now), 'now');
    assert.equal(formatWait('2025-03-01T12:00:01.250Z', now), 'in 1.3 s');
    assert.equal(formatWait('2025-03-01T12:03:00.000Z', now), 'in 3 min');
  });
});

describe('renderer dates', () => {
  test('a time to the second in local time, fixed separators', () => {
    const local = new Date(2026, 4, 9, 7, 3, 5);
    assert.equal(formatDateTime(local.toISOString()), '2026-05-09 07:03:05');
    assert.equal(formatDateTime(new Date(2026, 11, 31, 23, 59, 59).toISOString()), '2026-12-31 23:59:59');
    assert.equal(formatDateTime('not a time'), 'unknown');
  });
});
