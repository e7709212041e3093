import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChoStrategy, HOT_QUEUE_BONUS } from '../../../../crawler/ordering/cho.ts';
import type { OrderingStrategy } from '../../../../crawler/ordering/strategy.ts';

interface Link {
  id: number;
  anchor?: string;
  url?: string;
}

function crawlPage(s: OrderingStrategy, known: Set<number>, id: number, links: Link[], hot = false): void {
  for (const link of links) {
    s.linked({
      srcId: id,
      dstId: link.id,
      isNew: !known.has(link.id),
      url: link.url ?? `https://site.example/page${link.id}`,
      depth: 1,
      anchor: link.anchor ?? 'read more',
      context: '',
    });
    known.add(link.id);
  }
  s.fetched({ id, relevance: hot ? 1 : 0, hot, terms: [], outlinks: links.map((l) => l.id) });
}

function start(query = 'Solar energy'): { s: ChoStrategy; known: Set<number> } {
  const s = new ChoStrategy({ query, randomSeed: 1 });
  const known = new Set<number>([1]);
  s.linked({ srcId: null, dstId: 1, isNew: true, url: 'https://site.example/', depth: 0, anchor: '', context: '' });
  return { s, known };
}

const isHot = (s: OrderingStrategy, id: number): boolean => s.priority(id) >= HOT_QUEUE_BONUS;
const signal = (s: OrderingStrategy, id: number, name: string): number | undefined => s.explain(id).signals.find((x) => x.name === name)?.value;

describe('cho strategy', () => {
  it('files URLs whose anchor or URL carries a query term (as stems) in the hot queue', () => {
    const { s, known } = start();
    crawlPage(s, known, 1, [
      { id: 2, anchor: 'Solar panels explained' },
      { id: 3, url: 'https://site.example/renewable-energies/intro' },
      { id: 4, anchor: 'Contact us' },
      { id: 5, url: 'https://solarsite.example/x' },
    ]);
    assert.equal(isHot(s, 2), true, 'anchor term');
    assert.equal(isHot(s, 3), true, '"energies" stems like "energy"');
    assert.equal(isHot(s, 4), false);
    assert.equal(isHot(s, 5), false, 'a word that merely contains the term does not count');
    assert.equal(signal(s, 2, 'anchor-match'), 1);
    assert.equal(signal(s, 3, 'url-match'), 1);
    assert.match(s.explain(2).signals[0]?.note ?? '', /anchor/);
  });

  it('files the children and grandchildren of a hot page in the hot queue, not the next generation', () => {
    const { s, known } = start();
    crawlPage(s, known, 1, [{ id: 2 }, { id: 9 }]);
    crawlPage(s, known, 2, [{ id: 3 }], true);
    assert.equal(isHot(s, 3), true);
    assert.equal(signal(s, 3, 'hot-distance'), 1);
    crawlPage(s, known, 3, [{ id: 4 }]);
    assert.equal(signal(s, 4, 'hot-distance'), 2);
    assert.equal(isHot(s, 4), true);
    crawlPage(s, known, 4, [{ id: 5 }]);
    assert.equal(isHot(s, 5), false, 'distance 3 is outside Cho’s three levels');
    assert.equal(signal(s, 5, 'hot-distance'), -1);
    assert.equal(isHot(s, 9), false);
  });

  it('moves a waiting URL to the hot queue when later evidence arrives, and reports it', () => {
    const { s, known } = start();
    crawlPage(s, known, 1, [{ id: 2 }, { id: 3 }, { id: 7 }]);
    s.takeChanged();
    // 2 was fetched as a cold page; its child 4 waits in the URL queue.
    crawlPage(s, known, 2, [{ id: 4 }]);
    assert.equal(isHot(s, 4), false);
    s.takeChanged();
    // A hot page links to the fetched page 2: 2 is at distance 1, so its child 4 at distance 2.
    crawlPage(s, known, 3, [{ id: 2 }], true);
    assert.equal(isHot(s, 4), true);
    assert.ok(s.takeChanged().includes(4));
    // A later anchor with a query term moves 7.
    crawlPage(s, known, 4, [{ id: 7, anchor: 'energy storage' }]);
    assert.equal(isHot(s, 7), true);
    assert.ok(s.takeChanged().includes(7));
  });

  it('orders each queue by PageRank', () => {
    const { s, known } = start();
    crawlPage(s, known, 1, [{ id: 2 }, { id: 3 }, { id: 4 }, { id: 5, anchor: 'solar' }, { id: 6, anchor: 'solar' }]);
    crawlPage(s, known, 2, [{ id: 4 }, { id: 6, anchor: 'solar' }]);
    assert.ok(s.priority(4) > s.priority(3), 'URL queue: more linked first');
    assert.ok(s.priority(6) > s.priority(5), 'hot queue: more linked first');
    assert.ok(s.priority(5) > s.priority(4), 'any hot URL before any other');
    const e = s.explain(6);
    const pagerank = e.signals.find((x) => x.name === 'pagerank');
    assert.ok(pagerank !== undefined && Math.abs(e.priority - HOT_QUEUE_BONUS - pagerank.contribution) < 1e-6);
  });

  it('puts nothing in the hot queue by anchor or URL when the query has no content terms', () => {
    const { s, known } = start('the of and');
    crawlPage(s, known, 1, [{ id: 2, anchor: 'the solar' }, { id: 3, url: 'https://site.example/the/of' }]);
    assert.equal(isHot(s, 2), false);
    assert.equal(isHot(s, 3), false);
  });
});
