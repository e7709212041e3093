import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHANGE_FILTERS, changeQuery, describeNoMatch, PERIODS, usesPeriod } from '../../../../renderer/src/lib/page-filters.ts';

describe('the library\'s filter by changes', () => {
  const now = Date.UTC(2026, 4, 10, 12, 0, 0);

  it('counts a period back from now, and "ever" from the start', () => {
    assert.deepEqual(changeQuery('changed', 'day', now), { changedSince: Date.UTC(2026, 4, 9, 12, 0, 0) });
    assert.deepEqual(changeQuery('changed', 'hour', now), { changedSince: Date.UTC(2026, 4, 10, 11, 0, 0) });
    assert.deepEqual(changeQuery('new', 'week', now), { newSince: Date.UTC(2026, 4, 3, 12, 0, 0) });
    assert.deepEqual(changeQuery('new', 'month', now), { newSince: Date.UTC(2026, 3, 10, 12, 0, 0) });
    assert.deepEqual(changeQuery('changed', 'ever', now), { changedSince: 0 });
  });

  it('asks for gone pages whatever the period, and for nothing when showing all', () => {
    assert.deepEqual(changeQuery('gone', 'hour', now), { gone: true });
    assert.deepEqual(changeQuery('all', 'hour', now), {});
    assert.equal(usesPeriod('gone'), false);
    assert.equal(usesPeriod('all'), false);
    assert.equal(usesPeriod('changed'), true);
    assert.equal(usesPeriod('new'), true);
  });

  it('never asks for a time before the epoch', () => {
    assert.deepEqual(changeQuery('changed', 'month', 1000), { changedSince: 0 });
  });

  it('says what an empty list means for every filter and period', () => {
    for (const filter of CHANGE_FILTERS) {
      for (const period of PERIODS) {
        const words = describeNoMatch(filter.value, period.value);
        assert.ok(words.length > 10, `${filter.value} ${period.value}`);
        if (usesPeriod(filter.value)) assert.ok(words.includes(period.label), `${filter.value} names "${period.label}"`);
      }
    }
  });
});
