import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYNTHETIC_QUERY, syntheticLabGraph } from '../../../../crawler/lab/synthetic.ts';
import { virtualCrawl } from '../../../../crawler/lab/virtual-crawl.ts';
import { createStrategy } from '../../../../crawler/ordering/registry.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from '../../../../crawler/ordering/strategy.ts';
import type { PriorityExplanation } from '../../../../crawler/protocol/explanation.ts';

/**
 * Watches a strategy through a lab crawl and checks the ordering contract: a waiting URL's
 * priority never changes without the URL being reported by takeChanged() (else the caller's
 * queue would hold a wrong priority), each report lists an id once, and explain() agrees
 * with priority().
 */
class ContractWatch implements OrderingStrategy {
  readonly name: string;
  readonly #inner: OrderingStrategy;
  /** The priority the caller last read for each URL it may still fetch. */
  readonly lastRead = new Map<number, number>();
  violations: string[] = [];
  reports = 0;

  readonly #fetchable: (id: number) => boolean;

  constructor(inner: OrderingStrategy, fetchable: (id: number) => boolean) {
    this.#inner = inner;
    this.#fetchable = fetchable;
    this.name = inner.name;
  }

  linked(link: LinkEvent): void {
    this.#inner.linked(link);
  }

  fetched(page: PageVerdict): void {
    this.lastRead.delete(page.id);
    this.#inner.fetched(page);
  }

  priority(id: number): number {
    const p = this.#inner.priority(id);
    this.lastRead.set(id, p);
    return p;
  }

  takeChanged(): number[] {
    const changed = this.#inner.takeChanged();
    if (new Set(changed).size !== changed.length) this.violations.push(`duplicate ids in a report: ${changed.join(',')}`);
    this.reports += changed.length;
    const reported = new Set(changed);
    for (const [id, read] of this.lastRead) {
      // The lab passes over URLs without a stored page: they wait for nothing.
      if (!this.#fetchable(id)) continue;
      const now = this.#inner.priority(id);
      if (!reported.has(id) && now !== read && this.violations.length < 5) this.violations.push(`${id}: ${read} -> ${now} unreported`);
      if (!Number.isFinite(now)) this.violations.push(`${id}: priority ${now}`);
    }
    return changed;
  }

  explain(id: number): PriorityExplanation {
    return this.#inner.explain(id);
  }
}

describe('ordering contract', () => {
  const graph = syntheticLabGraph({ pages: 1500, seed: 11, sitePages: 100, topicalSites: 0.2 });
  for (const name of ['bfs', 'random', 'backlink', 'pagerank', 'fpr', 'cho', 'naive', 'focused']) {
    it(`${name}: reports every change of a waiting URL, once, and explains its priority`, () => {
      const watch = new ContractWatch(createStrategy(name, { query: SYNTHETIC_QUERY, randomSeed: 1 }), (id) => graph.stored[id] === 1);
      const crawl = virtualCrawl(graph, watch, 600);
      assert.equal(crawl.order.length, 600);
      assert.deepEqual(watch.violations, []);
      for (const id of [...watch.lastRead.keys()].slice(0, 200)) {
        const e = watch.explain(id);
        assert.equal(e.priority, watch.priority(id));
        assert.ok(e.signals.length > 0);
        assert.ok(e.signals.every((s) => Number.isFinite(s.value) && Number.isFinite(s.contribution)));
      }
      if (['backlink', 'pagerank', 'fpr', 'cho', 'naive', 'focused'].includes(name)) assert.ok(watch.reports > 0, 'evidence changed some priorities');
    });
  }
});
