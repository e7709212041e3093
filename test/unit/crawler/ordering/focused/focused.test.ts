import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFocusedStrategy } from '../../../../../crawler/ordering/focused/focused.ts';
import type { UrlKind } from '../../../../../crawler/parse/url-kind.ts';
import type { OrderingStrategy } from '../../../../../crawler/ordering/strategy.ts';
import { contentTerms } from '../../../../../crawler/relevance/text.ts';

const QUERY = 'socket servers';
const BASE = 'http://docs.test';

interface Link {
  url: string;
  anchor?: string;
  context?: string;
  kind?: UrlKind;
}

/** Feeds a strategy the way the engine does: linked() for every link of a page, then fetched(). */
class Crawl {
  readonly strategy: OrderingStrategy;
  readonly #ids = new Map<string, number>();

  constructor(query = QUERY) {
    this.strategy = createFocusedStrategy({ query, randomSeed: 1 });
  }

  id(url: string): number {
    const id = this.#ids.get(url);
    assert.ok(id !== undefined, `unknown URL ${url}`);
    return id;
  }

  seed(url: string): void {
    this.strategy.linked({ srcId: null, dstId: this.#assign(url).id, isNew: true, url, depth: 0, anchor: '', context: '' });
  }

  /** A fetched page with its links; grade defaults to 1 for hot and 0 otherwise. */
  fetch(url: string, verdict: { hot?: boolean; grade?: number; terms?: string[]; links?: (Link | string)[] } = {}): void {
    const srcId = this.#assign(url).id;
    const outlinks: number[] = [];
    for (const raw of verdict.links ?? []) {
      const link = typeof raw === 'string' ? { url: raw } : raw;
      const { id, isNew } = this.#assign(link.url);
      this.strategy.linked({ srcId, dstId: id, isNew, url: link.url, depth: 1, anchor: link.anchor ?? '', context: link.context ?? '', ...(link.kind === undefined ? {} : { kind: link.kind }) });
      outlinks.push(id);
    }
    const hot = verdict.hot ?? false;
    this.strategy.fetched({ id: srcId, relevance: hot ? 0.8 : 0.1, hot, grade: verdict.grade ?? (hot ? 1 : 0), terms: verdict.terms ?? [], outlinks });
  }

  priority(url: string): number {
    return this.strategy.priority(this.id(url));
  }

  contribution(url: string, signal: string): number {
    return this.strategy.explain(this.id(url)).signals.find((s) => s.name === signal)?.contribution ?? 0;
  }

  value(url: string, signal: string): number {
    return this.strategy.explain(this.id(url)).signals.find((s) => s.name === signal)?.value ?? 0;
  }

  #assign(url: string): { id: number; isNew: boolean } {
    const known = this.#ids.get(url);
    if (known !== undefined) return { id: known, isNew: false };
    const id = this.#ids.size + 1;
    this.#ids.set(url, id);
    return { id, isNew: true };
  }
}

const u = (path: string): string => `${BASE}${path}`;

describe('focused strategy: evidence before any learning', () => {
  it('ranks a link whose anchor names the query above one that does not, and URL words count', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [{ url: u('/a.html'), anchor: 'Weather' }, { url: u('/b.html'), anchor: 'Socket servers' }, { url: u('/socket.html'), anchor: 'Next' }] });
    assert.ok(c.priority(u('/b.html')) > c.priority(u('/socket.html')));
    assert.ok(c.priority(u('/socket.html')) > c.priority(u('/a.html')));
    assert.ok(c.contribution(u('/b.html'), 'anchor-best') > 0);
    assert.ok(c.contribution(u('/socket.html'), 'url') > 0);
  });

  it('splits identifiers and credits a query stem inside a longer word', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), {
      links: [
        { url: u('/1.html'), anchor: 'getSocketTimeout()' },
        { url: u('/2.html'), anchor: 'create_server_socket' },
        { url: u('/3.html'), anchor: 'websockets' },
        { url: u('/4.html'), anchor: 'getsockettimeout' },
      ],
    });
    assert.ok(c.contribution(u('/1.html'), 'anchor-best') > 0, 'camelCase split');
    assert.ok(c.contribution(u('/2.html'), 'anchor-best') > c.contribution(u('/1.html'), 'anchor-best'), 'both query terms named');
    const compound = c.contribution(u('/3.html'), 'anchor-best');
    assert.ok(compound > 0 && compound < c.contribution(u('/1.html'), 'anchor-best'), 'a stem inside a word earns part of the credit');
  });

  it('sums anchor evidence over every in-link', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [{ url: u('/once.html'), anchor: 'sockets' }, { url: u('/twice.html'), anchor: 'sockets' }, u('/p.html')] });
    c.fetch(u('/p.html'), { links: [{ url: u('/twice.html'), anchor: 'socket reference' }] });
    assert.ok(c.contribution(u('/twice.html'), 'anchor-sum') > c.contribution(u('/once.html'), 'anchor-sum'));
  });

  it('puts site resources first and downloads last', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [{ url: u('/searchindex.js'), kind: 'search-index' }, u('/guide.html'), u('/guide.pdf')] });
    assert.ok(c.priority(u('/searchindex.js')) > c.priority(u('/guide.html')));
    assert.ok(c.priority(u('/guide.pdf')) < c.priority(u('/guide.html')));
  });

  it('takes a search index\'s word for a page before it is fetched', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [{ url: u('/searchindex.js'), kind: 'search-index' }] });
    c.fetch(u('/searchindex.js'), { links: [{ url: u('/x.html'), anchor: 'Module x' }, { url: u('/y.html'), anchor: 'Module y' }] });
    c.strategy.hinted?.({ id: c.id(u('/x.html')), source: 'search-index', terms: contentTerms('socket server bind listen'), titleTerms: contentTerms('Module x') });
    c.strategy.hinted?.({ id: c.id(u('/y.html')), source: 'search-index', terms: contentTerms('colour palette'), titleTerms: contentTerms('Module y') });
    assert.ok(c.priority(u('/x.html')) > c.priority(u('/y.html')));
    assert.ok(c.contribution(u('/x.html'), 'index-body') > 0);
  });

  it('enters every seeded site before any site\'s search index or best link', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.seed('http://other.test/');
    c.fetch(u('/'), { links: [{ url: u('/searchindex.js'), kind: 'search-index' }, { url: u('/sockets.html'), anchor: 'socket servers' }] });
    assert.ok(c.priority('http://other.test/') > c.priority(u('/searchindex.js')), 'the other seed goes before the first site\'s search index');
    assert.ok(c.priority('http://other.test/') > c.priority(u('/sockets.html')));
    assert.ok(c.contribution('http://other.test/', 'seed') > 0);
    assert.equal(c.contribution(u('/sockets.html'), 'seed'), 0, 'a linked page is no seed');
  });

  it('fetches a hub before an unremarkable page', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [{ url: u('/page.html'), anchor: 'Weather' }, { url: u('/genindex.html'), anchor: 'Index' }, { url: u('/git-update-index.html'), anchor: 'git-update-index(1)' }] });
    assert.ok(c.priority(u('/genindex.html')) > c.priority(u('/page.html')));
    assert.equal(c.contribution(u('/git-update-index.html'), 'hub'), 0, 'a command named *-index is not a hub');
  });
});

describe('focused strategy: what fetched pages teach', () => {
  it('children of a hot page rise over children of a cold one', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [u('/hot.html'), u('/cold.html')] });
    c.fetch(u('/hot.html'), { hot: true, links: [u('/from-hot.html')] });
    c.fetch(u('/cold.html'), { links: [u('/from-cold.html')] });
    assert.ok(c.priority(u('/from-hot.html')) > c.priority(u('/from-cold.html')));
    assert.ok(c.contribution(u('/from-hot.html'), 'hot-parent') > 0);
  });

  it('a site whose pages are hot rises over a site whose pages are cold, and what it learns stays with that site', () => {
    const c = new Crawl();
    const hot = (path: string): string => `http://hot.test${path}`;
    const cold = (path: string): string => `http://cold.test${path}`;
    c.seed(hot('/'));
    c.seed(cold('/'));
    const pages = Array.from({ length: 12 }, (_, i) => i + 1);
    c.fetch(hot('/'), { links: pages.map((i) => hot(`/a${i}.html`)) });
    c.fetch(cold('/'), { links: pages.map((i) => cold(`/a${i}.html`)) });
    // Site yields are frozen per epoch of the model (the first after 8 pages) and reach every URL within half an epoch.
    for (const i of pages.slice(0, 6)) {
      c.fetch(hot(`/a${i}.html`), { hot: true });
      c.fetch(cold(`/a${i}.html`), { hot: false });
    }
    assert.ok(c.value(hot('/a12.html'), 'site') > 0, 'the hot site yields above the crawl\'s mean');
    assert.ok(c.value(cold('/a12.html'), 'site') < 0, 'the cold site below it');
    assert.ok(c.priority(hot('/a12.html')) > c.priority(cold('/a12.html')));
  });

  it('a language copy of a hot page rises over other pages of its language', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [u('/en/index.html'), u('/fr/index.html')] });
    c.fetch(u('/en/index.html'), { links: [u('/en/ch04.html'), u('/en/ch05.html')] });
    c.fetch(u('/fr/index.html'), { links: [u('/fr/ch04.html'), u('/fr/ch05.html')] });
    c.fetch(u('/en/ch04.html'), { hot: true });
    c.fetch(u('/en/ch05.html'), { hot: false });
    assert.ok(c.contribution(u('/fr/ch04.html'), 'copies') > 0);
    assert.ok(c.priority(u('/fr/ch04.html')) > c.priority(u('/fr/ch05.html')));
  });

  it('learns from the grades: a feature that keeps predicting relevance gains weight', () => {
    const c = new Crawl('zebra');
    c.seed(u('/'));
    const links: Link[] = [];
    for (let i = 0; i < 60; i++) links.push({ url: u(`/wal-${i}.html`) }, { url: u(`/misc-${i}.html`) });
    c.fetch(u('/'), { links });
    // Pages whose file name says "wal" keep turning out relevant; the others do not.
    for (let i = 0; i < 40; i++) {
      c.fetch(u(`/wal-${i}.html`), { hot: true });
      c.fetch(u(`/misc-${i}.html`), { hot: false });
    }
    assert.ok(c.contribution(u('/wal-59.html'), 'url-words') > 0.5, `url-words ${c.contribution(u('/wal-59.html'), 'url-words')}`);
    assert.ok(c.priority(u('/wal-59.html')) > c.priority(u('/misc-59.html')));
  });

  it('a query term that keeps leading to cold pages loses weight, the other term keeps it', () => {
    const c = new Crawl('triggers and trigger functions');
    c.seed(u('/'));
    const links: Link[] = [];
    for (let i = 0; i < 60; i++) links.push({ url: u(`/t${i}.html`), anchor: `Trigger ${i}` }, { url: u(`/f${i}.html`), anchor: `Functions ${i}` });
    c.fetch(u('/'), { links });
    for (let i = 0; i < 40; i++) {
      c.fetch(u(`/t${i}.html`), { hot: true });
      c.fetch(u(`/f${i}.html`), { hot: false });
    }
    const fn = c.contribution(u('/f59.html'), 'anchor-term:function');
    assert.ok(fn < -0.3, `anchor-term:function ${fn}`);
    assert.ok(fn < c.contribution(u('/t59.html'), 'anchor-term:trigger'));
    assert.ok(c.priority(u('/t59.html')) > c.priority(u('/f59.html')));
  });

  it('a page with hundreds of links lends each little of its verdict, and is no hot parent', () => {
    const c = new Crawl();
    c.seed(u('/'));
    const many = Array.from({ length: 600 }, (_, i) => u(`/entry-${i}.html`));
    c.fetch(u('/'), { links: [u('/glossary.html'), u('/guide.html')] });
    c.fetch(u('/glossary.html'), { hot: true, links: many });
    c.fetch(u('/guide.html'), { hot: true, links: [u('/chapter.html')] });
    const listed = c.value(u('/entry-1.html'), 'parent-mean');
    assert.ok(listed < 0.8, `parent-mean of a glossary entry ${listed}`);
    assert.ok(Math.abs(c.value(u('/chapter.html'), 'parent-mean') - 1) < 0.01, 'a selective page lends its whole verdict');
    assert.equal(c.value(u('/entry-1.html'), 'hot-parent'), 0);
    assert.equal(c.value(u('/chapter.html'), 'hot-parent'), 1);
    assert.ok(c.priority(u('/chapter.html')) > c.priority(u('/entry-1.html')));
  });

  it('a hub whose children turn hot earns their yield for its copies in other languages', () => {
    const c = new Crawl();
    c.seed(u('/'));
    const langs = ['en', 'de', 'fr', 'it'];
    c.fetch(u('/'), { links: [...langs.map((l) => u(`/${l}/index.html`)), u('/misc/a.html'), u('/misc/b.html')] });
    c.fetch(u('/misc/a.html'), { grade: 0.2 });
    const before = c.value(u('/fr/index.html'), 'copies');
    c.fetch(u('/en/index.html'), { grade: 0.1, links: [u('/en/ch1.html'), u('/en/ch2.html')] });
    c.fetch(u('/de/index.html'), { grade: 0.1, links: [u('/de/ch1.html')] });
    const cold = c.value(u('/fr/index.html'), 'copies');
    assert.ok(cold < before, `two cold language indexes lower their copies' yield (${before} → ${cold})`);
    c.fetch(u('/en/ch1.html'), { hot: true });
    c.fetch(u('/de/ch1.html'), { hot: true });
    const credited = c.value(u('/fr/index.html'), 'copies');
    assert.ok(credited > cold, `children found hot raise it again (${cold} → ${credited})`);
    assert.ok(c.strategy.explain(c.id(u('/it/index.html'))).priority > c.priority(u('/misc/b.html')));
  });

  it('a user label teaches at once and clearing it restores the judge\'s grade', () => {
    const c = new Crawl();
    c.seed(u('/'));
    c.fetch(u('/'), { links: [u('/p.html')] });
    c.fetch(u('/p.html'), { grade: 0.2, links: [u('/child.html')] });
    const before = c.priority(u('/child.html'));
    assert.ok(Math.abs(c.value(u('/child.html'), 'parent-mean') - 0.2) < 0.01);
    c.strategy.labelled?.(c.id(u('/p.html')), true);
    const changed = c.strategy.takeChanged();
    assert.ok(changed.includes(c.id(u('/child.html'))), 'the labelled page\'s child was re-scored');
    assert.ok(c.priority(u('/child.html')) > before);
    assert.ok(Math.abs(c.value(u('/child.html'), 'parent-mean') - 1) < 0.01, 'the label is the parent\'s grade now');
    assert.equal(c.value(u('/child.html'), 'hot-parent'), 1);
    c.strategy.labelled?.(c.id(u('/p.html')), null);
    assert.ok(c.strategy.takeChanged().includes(c.id(u('/child.html'))));
    assert.ok(Math.abs(c.value(u('/child.html'), 'parent-mean') - 0.2) < 0.01, 'clearing restored the judge\'s grade');
  });
});

describe('focused strategy: explain and incremental updates', () => {
  it('holds the features an ablation names at 0, and refuses a name it does not know', () => {
    const full = createFocusedStrategy({ query: QUERY, randomSeed: 1 });
    const ablated = createFocusedStrategy({ query: QUERY, randomSeed: 1 }, { without: ['anchor-best', 'anchor-term'] });
    for (const strategy of [full, ablated]) strategy.linked({ srcId: null, dstId: 1, isNew: true, url: u('/a.html'), depth: 0, anchor: 'Socket servers', context: '' });
    const names = (s: OrderingStrategy): string[] => s.explain(1).signals.map((x) => x.name);
    assert.ok(names(full).includes('anchor-best') && names(full).includes('anchor-term:socket'));
    assert.ok(!names(ablated).includes('anchor-best') && !names(ablated).some((n) => n.startsWith('anchor-term')));
    assert.ok(names(ablated).includes('anchor-sum'), 'other features stay');
    assert.ok(full.priority(1) > ablated.priority(1));
    assert.throws(() => createFocusedStrategy({ query: QUERY, randomSeed: 1 }, { without: ['anchors'] }), /unknown focused feature "anchors"/);
  });

  it('explain\'s contributions add up to the queued priority', () => {
    const c = new Crawl();
    c.seed(u('/'));
    const links: Link[] = Array.from({ length: 30 }, (_, i) => ({ url: u(`/p${i}.html`), anchor: i % 3 === 0 ? 'socket servers' : `page ${i}` }));
    c.fetch(u('/'), { links });
    for (let i = 0; i < 20; i++) c.fetch(u(`/p${i}.html`), { hot: i % 3 === 0, links: [{ url: u(`/q${i}.html`), anchor: 'socket' }] });
    for (const url of [u('/p25.html'), u('/q3.html'), u('/q4.html')]) {
      const e = c.strategy.explain(c.id(url));
      const sum = e.signals.reduce((s, x) => s + x.contribution, 0);
      assert.ok(Math.abs(sum - e.priority) < 1e-4, `${url}: ${sum} vs ${e.priority}`);
      assert.equal(e.priority, c.priority(url));
      assert.ok(e.signals.some((s) => s.name === 'model'));
    }
  });

  it('one fetched page re-scores its neighbourhood, not the whole frontier', () => {
    const c = new Crawl();
    c.seed(u('/'));
    const links = Array.from({ length: 5000 }, (_, i) => u(`/far/${i}.html`));
    c.fetch(u('/'), { links: [...links, u('/near.html')] });
    c.strategy.takeChanged();
    c.fetch(u('/near.html'), { hot: true, links: [u('/a.html'), u('/b.html')] });
    const changed = c.strategy.takeChanged();
    assert.ok(changed.length < 1000, `${changed.length} URLs re-scored for one page`);
  });

  it('re-scores at most 128 URLs a page in the lap over a large frontier, however long the crawl', () => {
    // 20,000 URLs known, each on its own host (no shared templates), none linked by a fetched page.
    const strategy = createFocusedStrategy({ query: QUERY, randomSeed: 1 });
    const known = 20_000;
    for (let id = 0; id < known; id++) strategy.linked({ srcId: null, dstId: id, isNew: true, url: `http://h${id}.test/p.html`, depth: 1, anchor: '', context: '' });
    let most = 0;
    for (let id = 0; id < 3_000; id++) {
      strategy.fetched({ id, relevance: 0, hot: false, grade: id % 4 === 0 ? 1 : 0, terms: [], outlinks: [] });
      const changed = strategy.takeChanged().length;
      // From 2,504 pages on, an epoch of fetched / 8 pages would be longer than MAX_EPOCH (256).
      if (id >= 2_600) most = Math.max(most, changed);
    }
    assert.ok(most > 0, 'the lap ran');
    assert.ok(most <= 128, `${most} URLs re-scored for one page`);
  });
});
