import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFocusedStrategy, type FocusedOptions } from '../../crawler/ordering/focused.ts';
import { logInterestRatio } from '../../crawler/ordering/focused-interest-ratios.ts';
import { createQueryMentionTest, createQueryTermSimilarity } from '../../crawler/ordering/focused-query-similarity.ts';
import type { OrderingStrategy } from '../../crawler/ordering/strategy.ts';
import { contentTerms } from '../../crawler/relevance/text.ts';

const QUERY = 'solar panel installation';

interface Link {
  url: string;
  anchor?: string;
  context?: string;
}

/** Feeds a strategy the way the engine does: linked() for every link of a page, then fetched(). */
class Crawl {
  readonly strategy: OrderingStrategy;
  readonly #ids = new Map<string, number>();
  readonly #fetched = new Set<number>();

  constructor(options?: FocusedOptions) {
    this.strategy = createFocusedStrategy({ query: QUERY, randomSeed: 1 }, options);
  }

  id(url: string): number {
    const id = this.#ids.get(url);
    assert.ok(id !== undefined, `unknown URL ${url}`);
    return id;
  }

  seed(url: string): void {
    this.strategy.linked({ srcId: null, dstId: this.#assign(url).id, isNew: true, url, depth: 0, anchor: '', context: '' });
  }

  fetch(url: string, verdict: { hot?: boolean; terms?: string[]; links?: (Link | string)[] } = {}): void {
    const srcId = this.#assign(url).id;
    const outlinks: number[] = [];
    for (const raw of verdict.links ?? []) {
      const link = typeof raw === 'string' ? { url: raw } : raw;
      const { id, isNew } = this.#assign(link.url);
      this.strategy.linked({ srcId, dstId: id, isNew, url: link.url, depth: 1, anchor: link.anchor ?? '', context: link.context ?? '' });
      outlinks.push(id);
    }
    const hot = verdict.hot ?? false;
    this.strategy.fetched({ id: srcId, relevance: hot ? 0.9 : 0.1, hot, terms: verdict.terms ?? [], outlinks });
    this.#fetched.add(srcId);
  }

  priority(url: string): number {
    return this.strategy.priority(this.id(url));
  }

  contribution(url: string, signal: string): number {
    const found = this.strategy.explain(this.id(url)).signals.find((s) => s.name === signal);
    assert.ok(found !== undefined, `no signal ${signal}`);
    return found.contribution;
  }

  signalValue(url: string, signal: string): number {
    const found = this.strategy.explain(this.id(url)).signals.find((s) => s.name === signal);
    assert.ok(found !== undefined, `no signal ${signal}`);
    return found.value;
  }

  /** Known URLs not fetched yet. */
  frontier(): string[] {
    return [...this.#ids].filter(([, id]) => !this.#fetched.has(id)).map(([url]) => url);
  }

  urlOf(id: number): string {
    for (const [url, known] of this.#ids) if (known === id) return url;
    throw new Error(`no URL with id ${id}`);
  }

  #assign(url: string): { id: number; isNew: boolean } {
    const known = this.#ids.get(url);
    if (known !== undefined) return { id: known, isNew: false };
    const id = 1000 + this.#ids.size * 7;
    this.#ids.set(url, id);
    return { id, isNew: true };
  }
}

function byPriority(crawl: Crawl, urls: string[]): string[] {
  return [...urls].sort((a, b) => crawl.priority(b) - crawl.priority(a));
}

/** Deterministic choices for generated crawls. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}

describe('focused strategy: query similarity at cold start', () => {
  it('orders the URL whose anchor matches the query first, then context and URL matches, then the rest', () => {
    const crawl = new Crawl();
    crawl.seed('http://a.test/');
    crawl.fetch('http://a.test/', {
      links: [
        { url: 'http://a.test/about', anchor: 'About us', context: 'company history and team' },
        { url: 'http://a.test/p/17', anchor: 'Solar panel installation guide', context: 'read before you buy' },
        { url: 'http://a.test/contact', anchor: 'Contact', context: 'phone and email' },
        { url: 'http://a.test/p/18', anchor: 'Next', context: 'our solar panels are installed by experts' },
        { url: 'http://a.test/solar-panels/installing', anchor: 'Read more', context: 'opening hours' },
      ],
    });
    const order = byPriority(crawl, crawl.frontier());
    assert.equal(order[0], 'http://a.test/p/17');
    // Anchor weighs more than context; both beat links with no query words.
    assert.ok(crawl.priority('http://a.test/p/17') > crawl.priority('http://a.test/p/18'));
    for (const matching of ['http://a.test/p/18', 'http://a.test/solar-panels/installing']) {
      for (const plain of ['http://a.test/about', 'http://a.test/contact']) assert.ok(crawl.priority(matching) > crawl.priority(plain), `${matching} > ${plain}`);
    }
    assert.ok(crawl.contribution('http://a.test/solar-panels/installing', 'url-similarity') > 0);
    assert.equal(crawl.contribution('http://a.test/about', 'url-similarity'), 0);
    // Nothing is learned before any page is known to be hot.
    for (const signal of ['parent-words', 'url-tokens', 'parent-hot', 'sibling-hot']) assert.equal(crawl.contribution('http://a.test/p/17', signal), 0);
  });

  it('keeps the best in-link: a later matching anchor raises a known URL and reports it', () => {
    const crawl = new Crawl();
    crawl.seed('http://a.test/');
    crawl.fetch('http://a.test/', { links: [{ url: 'http://a.test/x', anchor: 'More' }, 'http://a.test/b'] });
    const before = crawl.priority('http://a.test/x');
    crawl.strategy.takeChanged();
    crawl.fetch('http://a.test/b', { links: [{ url: 'http://a.test/x', anchor: 'Solar panels' }] });
    assert.ok(crawl.priority('http://a.test/x') > before);
    assert.ok(crawl.strategy.takeChanged().includes(crawl.id('http://a.test/x')));
    // A worse anchor later does not lower it.
    const raised = crawl.priority('http://a.test/x');
    crawl.fetch('http://a.test/x2', { links: [{ url: 'http://a.test/x', anchor: 'Home' }] });
    assert.ok(crawl.priority('http://a.test/x') >= raised);
  });

  it('breaks ties by backlinks from fetched pages, without outweighing the query', () => {
    const crawl = new Crawl();
    crawl.seed('http://b.test/');
    const hubs = ['http://b.test/h1', 'http://b.test/h2', 'http://b.test/h3'];
    crawl.fetch('http://b.test/', { links: [...hubs, { url: 'http://b.test/q', anchor: 'solar' }] });
    for (const hub of hubs) crawl.fetch(hub, { links: ['http://b.test/popular', ...(hub.endsWith('1') ? ['http://b.test/lonely'] : [])] });
    const popular = crawl.priority('http://b.test/popular');
    const lonely = crawl.priority('http://b.test/lonely');
    assert.ok(popular > lonely);
    assert.equal(crawl.signalValue('http://b.test/popular', 'importance'), 3);
    assert.ok(popular - lonely < 0.25);
    assert.ok(crawl.priority('http://b.test/q') > popular);
  });
});

describe('focused strategy: distance to hot pages', () => {
  it('ranks children of a hot page above other children, grandchildren in between', () => {
    const crawl = new Crawl();
    crawl.seed('http://d.test/');
    crawl.fetch('http://d.test/', { links: ['http://d.test/h', 'http://d.test/n'] });
    crawl.fetch('http://d.test/h', { hot: true, links: ['http://d.test/h1', 'http://d.test/h2', 'http://d.test/h3'] });
    crawl.fetch('http://d.test/n', { links: ['http://d.test/n1', 'http://d.test/n2', 'http://d.test/n3'] });
    const hotChildren = ['http://d.test/h2', 'http://d.test/h3'];
    const others = ['http://d.test/n1', 'http://d.test/n2', 'http://d.test/n3'];
    for (const h of hotChildren) for (const n of others) assert.ok(crawl.priority(h) > crawl.priority(n), `${h} > ${n}`);
    assert.equal(crawl.signalValue('http://d.test/h2', 'hot-distance'), 1);
    assert.equal(crawl.signalValue('http://d.test/n1', 'hot-distance'), 3);

    crawl.fetch('http://d.test/h1', { links: ['http://d.test/g1'] });
    assert.equal(crawl.signalValue('http://d.test/g1', 'hot-distance'), 2);
    assert.ok(crawl.priority('http://d.test/g1') > crawl.priority('http://d.test/n1'));
    assert.ok(crawl.priority('http://d.test/g1') < crawl.priority('http://d.test/h2'));
  });

  it('propagates a new hot page down through fetched pages to URLs already queued', () => {
    const crawl = new Crawl();
    crawl.seed('http://d.test/');
    crawl.fetch('http://d.test/', { links: ['http://d.test/a', 'http://d.test/z'] });
    crawl.fetch('http://d.test/a', { links: ['http://d.test/a1', 'http://d.test/a2'] });
    assert.equal(crawl.signalValue('http://d.test/a1', 'hot-distance'), 3);
    crawl.strategy.takeChanged();
    // z turns out hot and links to a, which was fetched already: a's children are now grandchildren of a hot page.
    crawl.fetch('http://d.test/z', { hot: true, links: ['http://d.test/a'] });
    assert.equal(crawl.signalValue('http://d.test/a1', 'hot-distance'), 2);
    const changed = new Set(crawl.strategy.takeChanged().map((id) => crawl.urlOf(id)));
    assert.deepEqual(changed, new Set(['http://d.test/a1', 'http://d.test/a2']));
  });
});

describe('focused strategy: learned interest ratios', () => {
  it('applies the significance test: frequent evidence counts, a single observation does not', () => {
    const clip = Math.log(10);
    assert.equal(logInterestRatio(1, 1, 0.25, 2, clip), 0);
    assert.equal(logInterestRatio(3, 3, 0.25, 2, clip), 0);
    assert.ok(logInterestRatio(40, 30, 0.25, 2, clip) > 0);
    assert.ok(logInterestRatio(40, 1, 0.25, 2, clip) < 0);
    // Within two standard deviations of what the base rate predicts: not used.
    assert.equal(logInterestRatio(40, 12, 0.25, 2, clip), 0);
    // A stricter t rejects what t = 2 accepts.
    assert.ok(logInterestRatio(40, 18, 0.25, 2, clip) > 0);
    assert.equal(logInterestRatio(40, 18, 0.25, 5, clip), 0);
    assert.equal(logInterestRatio(1000, 1000, 0.01, 2, clip), clip);
  });

  it('learns that a parent word predicts hot children and lifts new URLs under it; a rare word is ignored', () => {
    const crawl = new Crawl();
    crawl.seed('http://w.test/');
    const parents = Array.from({ length: 100 }, (_, k) => `http://w.test/section/${k}`);
    crawl.fetch('http://w.test/', { links: parents });
    for (let k = 0; k < parents.length; k++) {
      const terms = ['common', k % 2 === 0 ? 'zebra' : 'ostrich'];
      if (k === 1) terms.push('quokka');
      crawl.fetch(parents[k] as string, { terms, links: [`http://w.test/item/${k}0`, `http://w.test/item/${k}1`] });
    }
    // Children of "zebra" parents are hot; so is the single child of the "quokka" parent.
    for (let k = 0; k < parents.length; k++) crawl.fetch(`http://w.test/item/${k}0`, { hot: k % 2 === 0 || k === 1 });

    crawl.fetch('http://w.test/section/new-a', { terms: ['common', 'zebra'], links: ['http://w.test/item/9001'] });
    crawl.fetch('http://w.test/section/new-b', { terms: ['common', 'quokka'], links: ['http://w.test/item/9002'] });
    crawl.fetch('http://w.test/section/new-c', { terms: ['common'], links: ['http://w.test/item/9003'] });
    crawl.fetch('http://w.test/section/new-d', { terms: ['common', 'ostrich'], links: ['http://w.test/item/9004'] });
    crawl.fetch('http://w.test/section/new-e', { terms: ['common', 'zebra'], links: ['http://w.test/item/9004'] });
    const zebra = 'http://w.test/item/9001';
    assert.ok(crawl.contribution(zebra, 'parent-words') > 0.3, 'zebra is significant and favourable');
    assert.equal(crawl.contribution('http://w.test/item/9002', 'parent-words'), 0, 'one observation of quokka is not significant');
    assert.equal(crawl.contribution('http://w.test/item/9003', 'parent-words'), 0, 'a word on every parent predicts nothing');
    // Linked from a zebra and an ostrich parent: judged by the better one.
    assert.equal(crawl.contribution('http://w.test/item/9004', 'parent-words'), crawl.contribution(zebra, 'parent-words'));
    assert.ok(crawl.priority(zebra) > crawl.priority('http://w.test/item/9002'));
    assert.ok(crawl.priority(zebra) > crawl.priority('http://w.test/item/9003'));
    // Queued siblings under old zebra parents were lifted too (by the periodic re-score).
    assert.ok(crawl.contribution('http://w.test/item/01', 'parent-words') > 0);
    assert.ok(crawl.contribution('http://w.test/item/11', 'parent-words') < 0, 'ostrich parents had cold children');
  });

  it('learns URL tokens that predict hot pages', () => {
    const crawl = new Crawl();
    crawl.seed('http://t.test/');
    const pages = Array.from({ length: 120 }, (_, k) => (k % 3 === 0 ? `http://t.test/wiki/photovoltaics/${k}` : `http://t.test/shop/cart/${k}`));
    crawl.fetch('http://t.test/', { links: [...pages, 'http://t.test/wiki/photovoltaics/new', 'http://t.test/shop/cart/new'] });
    for (let k = 0; k < pages.length; k++) crawl.fetch(pages[k] as string, { hot: k % 3 === 0 });
    assert.ok(crawl.contribution('http://t.test/wiki/photovoltaics/new', 'url-tokens') > 0);
    assert.ok(crawl.contribution('http://t.test/shop/cart/new', 'url-tokens') < 0);
    assert.ok(crawl.priority('http://t.test/wiki/photovoltaics/new') > crawl.priority('http://t.test/shop/cart/new'));
  });

  it('scores by the share of hot crawled siblings, updated as siblings are fetched', () => {
    const crawl = new Crawl({ confidentAfterHot: 5, confidentAfterCold: 5 });
    crawl.seed('http://s.test/');
    crawl.fetch('http://s.test/', { links: ['http://s.test/a', 'http://s.test/b'] });
    const a = Array.from({ length: 12 }, (_, k) => `http://s.test/a/${k}`);
    const b = Array.from({ length: 12 }, (_, k) => `http://s.test/b/${k}`);
    crawl.fetch('http://s.test/a', { terms: ['common'], links: a });
    crawl.fetch('http://s.test/b', { terms: ['common'], links: b });
    for (let k = 0; k < 10; k++) {
      crawl.fetch(a[k] as string, { hot: true });
      crawl.fetch(b[k] as string, { hot: false });
    }
    assert.equal(crawl.signalValue('http://s.test/a/10', 'sibling-hot'), 1);
    assert.equal(crawl.signalValue('http://s.test/b/10', 'sibling-hot'), 0);
    assert.ok(crawl.contribution('http://s.test/a/10', 'sibling-hot') > 0);
    assert.ok(crawl.contribution('http://s.test/b/10', 'sibling-hot') < 0);
    assert.ok(crawl.priority('http://s.test/a/10') > crawl.priority('http://s.test/b/10'));
    // Everything else about the two is alike.
    for (const signal of ['anchor-similarity', 'url-similarity', 'hot-distance', 'parent-words', 'url-tokens', 'parent-hot', 'importance']) {
      assert.equal(crawl.contribution('http://s.test/a/10', signal), crawl.contribution('http://s.test/b/10', signal), signal);
    }

    crawl.strategy.takeChanged();
    crawl.fetch(a[10] as string, { hot: false });
    assert.ok(crawl.strategy.takeChanged().includes(crawl.id('http://s.test/a/11')), 'a fetched sibling updates the others');
    assert.ok(Math.abs(crawl.signalValue('http://s.test/a/11', 'sibling-hot') - 10 / 11) < 1e-9);
  });

  it('weights learned signals by a confidence that grows with hot and other pages', () => {
    const crawl = new Crawl();
    crawl.seed('http://c.test/');
    const pages = Array.from({ length: 200 }, (_, k) => `http://c.test/p/${k}`);
    crawl.fetch('http://c.test/', { links: pages });
    const seen: number[] = [];
    for (let k = 0; k < pages.length; k++) {
      crawl.fetch(pages[k] as string, { hot: k % 2 === 0 });
      seen.push(crawl.signalValue('http://c.test/', 'confidence'));
    }
    // The root and 14 pages: no re-score yet, so nothing learned is used.
    for (let k = 0; k < 14; k++) assert.equal(seen[k], 0, `page ${k + 2}`);
    for (let k = 1; k < seen.length; k++) assert.ok((seen[k] as number) >= (seen[k - 1] as number));
    assert.ok((seen[40] as number) > 0 && (seen[40] as number) < 1);
    assert.equal(seen.at(-1), 1);
  });
});

describe('focused strategy: incremental updates', () => {
  it('reports exactly the queued children at cold start, not the rest of the frontier', () => {
    const crawl = new Crawl();
    crawl.seed('http://i.test/');
    crawl.fetch('http://i.test/', { links: ['http://i.test/a', 'http://i.test/b', 'http://i.test/c'] });
    crawl.fetch('http://i.test/b', { links: ['http://i.test/b/1', 'http://i.test/b/2', 'http://i.test/b/3'] });
    crawl.strategy.takeChanged();
    crawl.fetch('http://i.test/a', { hot: true, links: ['http://i.test/a/1', 'http://i.test/a/2', 'http://i.test/b/1'] });
    const changed = crawl.strategy.takeChanged().map((id) => crawl.urlOf(id));
    // Not c: a's sibling ratio moved, but nothing learned is used yet. Not b's other children.
    assert.deepEqual(new Set(changed), new Set(['http://i.test/a/1', 'http://i.test/a/2', 'http://i.test/b/1']));
    assert.equal(changed.length, 3, 'each URL once');
    assert.deepEqual(crawl.strategy.takeChanged(), []);
  });

  it('once learning, reports the URLs whose priority the fetch changed: children and siblings only', () => {
    const crawl = new Crawl({ rescoreMinPages: 8, rescoreMaxPages: 8, confidentAfterHot: 2, confidentAfterCold: 2 });
    const random = lcg(11);
    crawl.seed('http://l.test/');
    const sections = Array.from({ length: 6 }, (_, k) => `http://l.test/s${k}`);
    crawl.fetch('http://l.test/', { links: sections });
    let page = 1;
    const fetchNext = (url: string): void => {
      const links = Array.from({ length: 8 }, (_, k) => `${url}/${k}`);
      // Pages under even sections are mostly hot, so sibling ratios become significant.
      const hot = random() < (Number(url.split('/')[3]?.slice(1)) % 2 === 0 ? 0.9 : 0.1);
      crawl.fetch(url, { hot, terms: random() < 0.5 ? ['common', 'zebra'] : ['common'], links });
      page++;
    };
    for (const s of sections) fetchNext(s);
    // Epochs start at pages 8, 16, 24…; each re-score lap takes half an epoch (4 pages).
    while (page < 28) fetchNext(crawl.frontier().find((url) => url.split('/').length === 5) as string);
    crawl.strategy.takeChanged();
    const frontier = crawl.frontier();
    for (const url of frontier) assert.equal(crawl.strategy.explain(crawl.id(url)).priority, crawl.priority(url), 'no stale priority between laps');
    const before = new Map(frontier.map((url) => [url, crawl.priority(url)]));

    const target = frontier.find((url) => url.startsWith('http://l.test/s2/')) as string;
    fetchNext(target);
    const reported = new Set(crawl.strategy.takeChanged().map((id) => crawl.urlOf(id)));
    const moved = new Set(frontier.filter((url) => url !== target && crawl.strategy.explain(crawl.id(url)).priority !== before.get(url)));
    for (let k = 0; k < 8; k++) moved.add(`${target}/${k}`);
    assert.deepEqual(reported, moved);
    const siblings = [...reported].filter((url) => url.startsWith('http://l.test/s2/') && url.split('/').length === 5);
    assert.ok(siblings.length > 0, 'siblings are among the affected');
    for (const url of reported) assert.ok(url.startsWith(`${target}/`) || url.startsWith('http://l.test/s2/'), `${url} is a child or a sibling`);
    assert.ok(reported.size < frontier.length / 2);
  });

  it('keeps the work per page far below the frontier size on a 100,000-URL frontier', () => {
    const crawl = new Crawl();
    const random = lcg(5);
    crawl.seed('http://big.test/');
    const hubs = Array.from({ length: 200 }, (_, k) => `http://big.test/hub${k}`);
    crawl.fetch('http://big.test/', { links: hubs });
    let changedTotal = 0;
    let pages = 0;
    for (const hub of hubs) {
      const links = Array.from({ length: 500 }, (_, k) => ({ url: `${hub}/item${k}`, anchor: random() < 0.1 ? 'solar panels' : 'item', context: 'more items here' }));
      crawl.fetch(hub, { hot: random() < 0.3, terms: random() < 0.5 ? ['alpha', 'beta'] : ['gamma'], links });
      changedTotal += crawl.strategy.takeChanged().length;
      pages++;
    }
    const frontier = crawl.frontier().length;
    assert.ok(frontier >= 100_000);
    for (let k = 0; k < 100; k++) {
      crawl.fetch(`http://big.test/hub${k}/item${k}`, { hot: random() < 0.3 });
      changedTotal += crawl.strategy.takeChanged().length;
      pages++;
    }
    // Children and siblings (≤ 500 each here) plus a share of the periodic re-score lap.
    assert.ok(changedTotal / pages < 3_000, `changed per page ${changedTotal / pages}`);
  });
});

describe('focused strategy: explain', () => {
  it('lists every signal with contributions that sum to the priority', () => {
    const crawl = new Crawl({ confidentAfterHot: 5, confidentAfterCold: 5 });
    const random = lcg(3);
    crawl.seed('http://e.test/');
    const sections = Array.from({ length: 12 }, (_, k) => `http://e.test/${k % 2 === 0 ? 'solar' : 'misc'}/${k}`);
    crawl.fetch('http://e.test/', { links: sections.map((url, k) => ({ url, anchor: k % 3 === 0 ? 'Solar installation' : 'Section' })) });
    for (const section of sections) {
      const topical = section.includes('solar');
      crawl.fetch(section, {
        hot: topical && random() < 0.8,
        terms: topical ? ['sun', 'roof'] : ['cart', 'price'],
        links: Array.from({ length: 10 }, (_, k) => ({ url: `${section}/${k}`, anchor: random() < 0.2 ? 'panel' : 'page', context: 'see also' })),
      });
    }
    for (let k = 0; k < 60; k++) {
      const url = sections[k % 12] + '/' + (k % 8);
      if (crawl.frontier().includes(url)) crawl.fetch(url, { hot: url.includes('solar') && random() < 0.9, links: [`${url}/deeper`] });
    }
    const names = ['anchor-similarity', 'url-similarity', 'hot-distance', 'parent-words', 'url-tokens', 'parent-hot', 'sibling-hot', 'importance', 'confidence'];
    let learned = 0;
    for (const url of crawl.frontier()) {
      const explanation = crawl.strategy.explain(crawl.id(url));
      for (const name of names) assert.ok(explanation.signals.some((s) => s.name === name), `${name} explained`);
      const sum = explanation.signals.reduce((total, s) => total + s.contribution, 0);
      assert.ok(Math.abs(sum - explanation.priority) < 1e-9, `${url}: ${sum} vs ${explanation.priority}`);
      for (const s of explanation.signals) assert.ok(Number.isFinite(s.value) && Number.isFinite(s.contribution));
      if (explanation.signals.some((s) => ['parent-words', 'url-tokens', 'parent-hot', 'sibling-hot'].includes(s.name) && s.contribution !== 0)) learned++;
    }
    assert.ok(learned > 0, 'some learned signal contributes');
    assert.equal(crawl.strategy.explain(424242).priority, 0);
  });
});

describe('query similarity', () => {
  it('is the share of distinct query stems present', () => {
    const similarity = createQueryTermSimilarity('Solar panels installation');
    assert.equal(similarity.similarity(contentTerms('solar panel')), 2 / 3);
    assert.equal(similarity.similarity(contentTerms('installing solar panels, solar!')), 1);
    assert.equal(similarity.similarity(contentTerms('wind turbines')), 0);
    assert.equal(createQueryTermSimilarity('the of').similarity(contentTerms('the of')), 0);
  });

  it('never rules out a text that contains a query term', () => {
    const query = 'possibility of happy queries relational crawling';
    const mayMention = createQueryMentionTest(query);
    const similarity = createQueryTermSimilarity(query);
    for (const text of ['POSSIBILITIES', 'happiness', 'a query', 'relations', 'the crawler crawled', 'Happy']) {
      if (similarity.similarity(contentTerms(text)) > 0) assert.ok(mayMention(text), text);
    }
    assert.equal(mayMention('nothing to see'), false);
    assert.equal(createQueryMentionTest('')('anything'), false);
  });
});
