import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { alignCurves, harvestColumns, sampleEvenly, seriesKey } from '../../../../renderer/src/lib/series.ts';

describe('sampleEvenly', () => {
  test('returns a copy of short inputs', () => {
    const items = [1, 2, 3];
    const sampled = sampleEvenly(items, 10);
    assert.deepEqual(sampled, items);
    assert.notEqual(sampled, items);
  });

  test('keeps first and last and at most max items, in order', () => {
    const items = Array.from({ length: 1001 }, (_, i) => i);
    const sampled = sampleEvenly(items, 11);
    assert.deepEqual(sampled, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    const odd = sampleEvenly(Array.from({ length: 997 }, (_, i) => i), 50);
    assert.equal(odd.length, 50);
    assert.equal(odd[0], 0);
    assert.equal(odd.at(-1), 996);
    for (let i = 1; i < odd.length; i++) assert.ok((odd[i] as number) > (odd[i - 1] as number));
  });
});

describe('harvestColumns', () => {
  test('turns points into uPlot columns with strictly increasing x', () => {
    const columns = harvestColumns(
      [
        { fetched: 1, hot: 1, harvestRate: 1 },
        { fetched: 2, hot: 1, harvestRate: 0.5 },
        { fetched: 2, hot: 2, harvestRate: 1 },
        { fetched: 4, hot: 2, harvestRate: 0.5 },
      ],
      100,
    );
    assert.deepEqual(columns, [
      [1, 2, 4],
      [1, 1, 0.5],
      [1, 2, 2],
    ]);
  });

  test('down-samples long series', () => {
    const series = Array.from({ length: 5000 }, (_, i) => ({ fetched: i + 1, hot: i >> 1, harvestRate: (i >> 1) / (i + 1) }));
    const [xs, rates, hot] = harvestColumns(series, 600);
    assert.equal(xs.length, 600);
    assert.equal(rates.length, 600);
    assert.equal(hot.length, 600);
    assert.equal(xs.at(-1), 5000);
  });

  test('seriesKey changes when a point arrives', () => {
    const a = [{ fetched: 10, hot: 2, harvestRate: 0.2 }];
    assert.equal(seriesKey(a), seriesKey([...a]));
    assert.notEqual(seriesKey(a), seriesKey([...a, { fetched: 11, hot: 2, harvestRate: 2 / 11 }]));
    assert.notEqual(seriesKey(a), seriesKey([{ fetched: 10, hot: 3, harvestRate: 0.3 }]));
  });
});

describe('alignCurves', () => {
  test('puts curves on one sorted x with nulls where a curve has no sample', () => {
    const aligned = alignCurves(
      [
        { x: [10, 20, 30], y: [0.1, 0.2, 0.3] },
        { x: [15, 30], y: [null, 0.5] },
      ],
      100,
    );
    assert.deepEqual(aligned.x, [10, 15, 20, 30]);
    assert.deepEqual(aligned.ys, [
      [0.1, null, 0.2, 0.3],
      [null, null, null, 0.5],
    ]);
  });

  test('samples each curve before merging', () => {
    const x = Array.from({ length: 1000 }, (_, i) => i + 1);
    const aligned = alignCurves([{ x, y: x.map((v) => v / 1000) }], 10);
    assert.equal(aligned.x.length, 10);
    assert.equal(aligned.x.at(-1), 1000);
    assert.equal(aligned.ys[0]?.at(-1), 1);
  });
});
