import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UrlAdmission, type Discovery } from '../../../../crawler/engine/url-admission.ts';
import type { LinkEvent } from '../../../../crawler/ordering/strategy.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';
import { createScope } from '../../../../crawler/url/scope.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

const tmp = tempDir('forager-admission-');
after(() => tmp.cleanup());

const SEED = 'https://docs.example/';
const link = (over: Partial<Discovery> = {}): Discovery => ({ depth: 1, parentId: 1, redirects: 0, anchor: 'a', context: '', isSeed: false, ...over });

function setUp(name: string, rules: { include?: string[]; exclude?: string[] } = {}): { admission: UrlAdmission; urls: UrlStore; events: LinkEvent[]; close: () => void } {
  const db = openCollection(join(tmp.dir, name), { create: true });
  const settings = { ...DEFAULT_SETTINGS, query: 'wal', seeds: [SEED], ...rules };
  const urls = new UrlStore(db);
  const events: LinkEvent[] = [];
  const admission = new UrlAdmission(settings, { urls, hosts: new HostStore(db) }, createScope('hosts', settings.seeds), {
    robotsBlockReason: () => null,
    linked: (event) => events.push(event),
  }, 16);
  admission.admit(SEED, SEED, { ...link(), depth: 0, parentId: null, isSeed: true });
  return { admission, urls, events, close: () => db.close() };
}

describe('URL admission of site resources', () => {
  it('stores a new URL with the kind its discoverer names, and says so on the link event', () => {
    const { admission, urls, events, close } = setUp('new.db');
    const index = admission.admit('searchindex.js', SEED, link({ anchor: '', kind: 'search-index' }));
    const page = admission.admit('guide.html', SEED, link());
    assert.ok(index?.isNew && page?.isNew);
    assert.equal(urls.queued(index.id)?.kind, 'search-index');
    assert.equal(urls.queued(page.id)?.kind, 'page');
    assert.deepEqual(events.slice(1).map((e) => [e.url, e.kind]), [[`${SEED}searchindex.js`, 'search-index'], [`${SEED}guide.html`, undefined]]);
    assert.ok(!('kind' in (events[2] as LinkEvent)), 'an ordinary page has no kind field');
    close();
  });

  it('makes a page still waiting the resource a later discoverer names, and every later link says so', () => {
    const { admission, urls, events, close } = setUp('promote.db');
    const first = admission.admit('/sitemap.xml', SEED, link({ anchor: 'site map' }));
    assert.equal(first?.isNew, true);
    admission.admit('/sitemap.xml', SEED, link({ parentId: null, anchor: '', kind: 'sitemap' }));
    admission.admit('/sitemap.xml', SEED, link({ anchor: 'site map again' }));
    assert.deepEqual(events.slice(1).map((e) => [e.isNew, e.kind]), [[true, undefined], [false, 'sitemap'], [false, 'sitemap']]);
    assert.equal(urls.queued(first?.id as number)?.kind, 'sitemap');
    close();
  });

  it('leaves a fetched page a page', () => {
    const { admission, urls, events, close } = setUp('fetched.db');
    const first = admission.admit('/sitemap.xml', SEED, link()) as { id: number };
    urls.markInflight(first.id);
    urls.finish(first.id, UrlState.fetched, null);
    admission.admit('/sitemap.xml', SEED, link({ kind: 'sitemap' }));
    assert.equal(urls.get(first.id)?.kind, 'page');
    assert.equal(events.at(-1)?.kind, undefined);
    close();
  });
});

describe('URL admission by include and exclude rules', () => {
  const stored = (urls: UrlStore, id: number | undefined) => {
    const row = urls.get(id as number);
    return [row?.state, row?.reason];
  };

  it('stores a link an exclude matches, or no include matches, as skipped with the rule reason, never queued', () => {
    const { admission, urls, close } = setUp('rules.db', { include: [`${SEED}docs/**`, '**/*.pdf'], exclude: ['**/*.zip'] });
    assert.deepEqual(stored(urls, admission.admit('docs/guide.html', SEED, link())?.id), [UrlState.queued, null]);
    assert.deepEqual(stored(urls, admission.admit('blog/manual.pdf', SEED, link())?.id), [UrlState.queued, null]);
    assert.deepEqual(stored(urls, admission.admit('docs/pack.zip', SEED, link())?.id), [UrlState.skipped, 'rule:exclude']);
    assert.deepEqual(stored(urls, admission.admit('blog/', SEED, link())?.id), [UrlState.skipped, 'rule:not-included']);
    close();
  });

  it('judges redirect targets and sitemaps as links, and scope before the rules', () => {
    const { admission, urls, close } = setUp('rules-kinds.db', { exclude: ['**/*.xml', '**/old/**'] });
    assert.deepEqual(stored(urls, admission.admit('/sitemap.xml', SEED, link({ parentId: null, kind: 'sitemap' }))?.id), [UrlState.skipped, 'rule:exclude']);
    assert.deepEqual(stored(urls, admission.admit('/old/page', SEED, link({ redirects: 1, anchor: '' }))?.id), [UrlState.skipped, 'rule:exclude']);
    assert.deepEqual(stored(urls, admission.admit('https://elsewhere.example/old/x', SEED, link())?.id), [UrlState.skipped, 'scope']);
    close();
  });

  it('always admits a seed, whatever the rules say', () => {
    const { admission, urls, close } = setUp('rules-seed.db', { include: ['https://docs.example/only/**'], exclude: ['https://docs.example/'] });
    const seed = admission.admit('https://docs.example/other/', 'https://docs.example/other/', link({ depth: 0, parentId: null, isSeed: true }));
    assert.deepEqual(stored(urls, seed?.id), [UrlState.queued, null]);
    close();
  });
});
