import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RevisitOrdering } from '../../../../crawler/ordering/revisit-ordering.ts';
import type { RevisitFacts } from '../../../../crawler/ordering/revisit-policy.ts';
import type { OrderingStrategy } from '../../../../crawler/ordering/strategy.ts';

const DAY = 86_400_000;
const NOW = 100 * DAY;

/** A strategy that gives every URL the priority 0.5 and reports what it heard. */
function innerStrategy(): OrderingStrategy & { hints: number[]; changed: number[] } {
  const hints: number[] = [];
  const changed: number[] = [];
  return {
    name: 'inner',
    hints,
    changed,
    linked: () => undefined,
    hinted: (hint) => void hints.push(hint.id),
    fetched: () => undefined,
    priority: () => 0.5,
    takeChanged: () => changed.splice(0),
    explain: (id) => ({ priority: 0.5, signals: [{ name: 'inner', value: id, contribution: 0.5 }] }),
  };
}

function facts(overrides: Partial<RevisitFacts> = {}): RevisitFacts {
  return { firstFetchedAt: 0, checkedAt: 90 * DAY, revisits: 0, changes: 0, value: 0.5, ...overrides };
}

describe('RevisitOrdering', () => {
  it("gives a queued revisit the policy's priority, any other URL the strategy's, and the strategy's again once done", () => {
    const ordering = new RevisitOrdering(innerStrategy(), () => NOW);
    ordering.queue(7, facts(), false);
    const revisit = ordering.priority(7);
    assert.ok(revisit > 0 && revisit < 0.5, String(revisit));
    assert.equal(ordering.priority(8), 0.5);
    assert.equal(ordering.isRevisit(7), true);
    assert.equal(ordering.queuedRevisits, 1);
    ordering.done(7);
    assert.equal(ordering.priority(7), 0.5);
    assert.equal(ordering.queuedRevisits, 0);
  });

  it('puts a site resource first, then the page worth more at the same chance of change', () => {
    const ordering = new RevisitOrdering(innerStrategy(), () => NOW);
    ordering.queue(1, facts({ value: 0 }), false);
    ordering.queue(2, facts({ value: 1 }), false);
    ordering.queue(3, facts({ value: 0 }), true);
    assert.equal(ordering.priority(3), 1);
    assert.ok(ordering.priority(2) > ordering.priority(1));
  });

  it("takes a sitemap's lastmod: a waiting revisit it says changed moves up and is reported changed; the strategy hears it too", () => {
    const inner = innerStrategy();
    const ordering = new RevisitOrdering(inner, () => NOW);
    ordering.queue(4, facts(), false);
    ordering.queue(5, facts(), false);
    inner.changed.push(9);
    ordering.hinted({ id: 5, source: 'sitemap', lastModified: 95 * DAY });
    ordering.hinted({ id: 4, source: 'sitemap', lastModified: 80 * DAY });
    assert.ok(ordering.priority(5) > ordering.priority(4));
    assert.deepEqual(ordering.takeChanged().sort(), [4, 5, 9]);
    assert.deepEqual(ordering.takeChanged(), []);
    assert.deepEqual(inner.hints, [5, 4]);
  });

  it('remembers a lastmod heard before the page was queued (a stored sitemap replayed at the start)', () => {
    const ordering = new RevisitOrdering(innerStrategy(), () => NOW);
    ordering.hinted({ id: 6, source: 'sitemap', lastModified: 95 * DAY });
    ordering.queue(6, facts(), false);
    ordering.queue(10, facts(), false);
    assert.ok(ordering.priority(6) > ordering.priority(10));
  });

  it('explains a revisit by its chance of change and value, and anything else by the strategy', () => {
    const ordering = new RevisitOrdering(innerStrategy(), () => NOW);
    ordering.queue(7, facts({ revisits: 4, changes: 2, checkedAt: 90 * DAY }), false);
    const explained = ordering.explain(7);
    assert.equal(explained.priority, ordering.priority(7));
    assert.deepEqual(explained.signals.map((s) => s.name), ['revisit:changed-chance', 'revisit:value']);
    assert.match(explained.signals[0]?.note ?? '', /from 4 revisits \(2 changed\)/);
    assert.equal(ordering.explain(8).signals[0]?.name, 'inner');
  });
});
