import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedChance, changeRate, changesPerInterval, DEFAULT_CHANGES_PER_MS, pageChangeRate, pooledChangeRate, revisitPriority, type RevisitFacts } from '../../../../crawler/ordering/revisit-policy.ts';

const DAY = 86_400_000;

function page(overrides: Partial<RevisitFacts> = {}): RevisitFacts {
  return { firstFetchedAt: 0, checkedAt: 10 * DAY, revisits: 10, changes: 5, value: 0.5, ...overrides };
}

describe('Cho and Garcia-Molina change-rate estimate', () => {
  it('is −ln((n − X + 0.5)/(n + 0.5)) changes per check interval', () => {
    assert.equal(changesPerInterval(10, 0), -Math.log(10.5 / 10.5));
    assert.ok(Math.abs(changesPerInterval(10, 5) - -Math.log(5.5 / 10.5)) < 1e-12);
    // Every check found a change: finite, and above the naive X/n = 1 (changes between checks went unseen).
    const all = changesPerInterval(10, 10);
    assert.ok(Number.isFinite(all) && all > 1, String(all));
  });

  it('exceeds the naive X/n, which is biased low when pages change more than once between checks', () => {
    for (const [n, x] of [[20, 10], [20, 15], [50, 40]] as const) assert.ok(changesPerInterval(n, x) > x / n, `${n}, ${x}`);
  });

  it('is a rate per millisecond over the mean check interval, and undefined without checks', () => {
    assert.equal(changeRate(0, 0, DAY), undefined);
    const perMs = changeRate(10, 5, 10 * DAY) as number;
    assert.ok(Math.abs(perMs - changesPerInterval(10, 5) / DAY) < 1e-18);
  });

  it('pools every revisited page, and starts from once a month when nothing was revisited', () => {
    assert.equal(pooledChangeRate([]), DEFAULT_CHANGES_PER_MS);
    const pooled = pooledChangeRate([page({ revisits: 5, changes: 5, checkedAt: 5 * DAY }), page({ revisits: 5, changes: 0, checkedAt: 5 * DAY }), page({ revisits: 0, changes: 0 })]);
    assert.ok(Math.abs(pooled - changeRate(10, 5, 10 * DAY)!) < 1e-18);
  });

  it('adds the revisits to a prior of one change at the pooled rate, and never reaches zero', () => {
    const pooled = 1 / DAY;
    assert.equal(pageChangeRate(page({ revisits: 0, changes: 0 }), pooled), pooled);
    const one = pageChangeRate(page({ revisits: 1, changes: 0, checkedAt: DAY }), pooled);
    assert.ok(Math.abs(one - 1 / (2 * DAY)) < 1e-18, 'one unchanged day halves a once-a-day prior');
    const many = pageChangeRate(page({ revisits: 30, changes: 0, checkedAt: 30 * DAY }), pooled);
    assert.ok(many > 0 && many < pooled / 20, 'thirty unchanged revisits: rarely, but still');
    // Ten daily revisits that all found a change: the estimator's bias-corrected count (more than ten) dominates the prior.
    const slow = pooled / 30;
    const busy = pageChangeRate(page({ revisits: 10, changes: 10, checkedAt: 10 * DAY }), slow);
    assert.ok(busy > 20 * slow, `${busy * DAY} changes a day`);
  });
});

describe('revisit priority', () => {
  const pooled = 1 / (7 * DAY);
  it('grows with the time since the last check', () => {
    const recent = changedChance(page({ checkedAt: 10 * DAY }), pooled, 11 * DAY);
    const old = changedChance(page({ checkedAt: 10 * DAY }), pooled, 40 * DAY);
    assert.ok(old > recent && old < 1 && recent > 0);
  });

  it('puts a page that changes often before one that never did, at equal value', () => {
    const often = revisitPriority(page({ revisits: 10, changes: 9 }), pooled, 12 * DAY);
    const never = revisitPriority(page({ revisits: 10, changes: 0 }), pooled, 12 * DAY);
    assert.ok(often > never, `${often} > ${never}`);
  });

  it('weighs the chance by how much the page matters', () => {
    const hot = revisitPriority(page({ value: 1 }), pooled, 12 * DAY);
    const offTopic = revisitPriority(page({ value: 0 }), pooled, 12 * DAY);
    assert.ok(hot > offTopic && offTopic > 0, 'an off-topic page still gets revisited, last');
  });

  it("follows a sitemap's lastmod over the estimate", () => {
    const changed = page({ revisits: 10, changes: 0, lastModified: 11 * DAY });
    const unchanged = page({ revisits: 10, changes: 10, lastModified: 9 * DAY });
    assert.equal(changedChance(changed, pooled, 12 * DAY), 1);
    assert.ok(changedChance(unchanged, pooled, 12 * DAY) < 0.1);
  });
});
