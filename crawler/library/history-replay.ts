import type { Acronym } from '../relevance/acronyms.ts';
import { linkContext, type OrderingStrategy } from '../ordering/strategy.ts';
import { DEFAULT_SETTINGS } from '../protocol/settings.ts';
import { CrawlHistory, type HistoryPage } from '../store/crawl-history.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { loadSettings } from '../store/settings-store.ts';
import { urlKindOf } from '../store/url-kind.ts';
import { storedRootResources, storedSeedIds } from '../store/url-store.ts';
import { storedResourceHints, type StoredResourceLimits } from '../parse/resource-hints.ts';
import { linkKind } from '../parse/url-kind.ts';

/** Pages, or queued URLs, read per statement: no statement stays open between two steps. */
const CHUNK = 500;

/**
 * Rebuilds a strategy's state when a crawl resumes: the seeds, the site resources no page
 * listed (robots.txt Sitemap lines and a seed host's /sitemap.xml, which the crawl admitted
 * on reading the host's robots.txt, before its pages), then every stored page in fetch
 * order with its links, exactly as the engine first reported them; a stored site resource
 * then gives its hints again, re-read from its stored body, before its fetched(). Queued
 * URLs the links do not explain (redirect targets, canonical hints) are reported last, so
 * the strategy knows every URL the frontier holds.
 */
export function replayHistory(db: ReadonlyDb, strategy: OrderingStrategy, acronyms: readonly Acronym[] = []): void {
  for (const _ of historyReplaySteps(db, strategy, acronyms));
}

/**
 * The replay (replayHistory) as steps: it pauses after each page and each chunk of queued
 * URLs, holding no statement open, so that a caller may let the event loop run between steps
 * (a shard opened beside the lease renewals, engine/time-slices.ts).
 */
export function* historyReplaySteps(db: ReadonlyDb, strategy: OrderingStrategy, acronyms: readonly Acronym[] = []): Generator<void, void, undefined> {
  const known = new Set<number>();
  const history = new CrawlHistory(db);
  for (const id of storedSeedIds(db)) {
    const row = history.url(id);
    if (row === undefined || known.has(id)) continue;
    known.add(id);
    strategy.linked({ srcId: null, dstId: id, isNew: true, url: row.url, depth: row.depth, anchor: '', context: '', ...linkKind(urlKindOf(row.kind)) });
  }
  for (const resource of storedRootResources(db)) {
    if (known.has(resource.id)) continue;
    known.add(resource.id);
    strategy.linked({ srcId: null, dstId: resource.id, isNew: true, url: resource.url, depth: resource.depth, anchor: '', context: '', kind: resource.kind });
  }
  yield;
  const limits = loadSettings(db) ?? DEFAULT_SETTINGS;
  let first = true;
  for (let pages = history.pagesAfter(0, CHUNK); pages.length > 0; pages = history.pagesAfter(pages[pages.length - 1]?.seq ?? 0, CHUNK)) {
    for (const page of pages) {
      replayPage(history, page, strategy, known, limits, first ? acronyms : []);
      first = false;
      yield;
    }
  }
  for (let queued = history.queuedAfter(0, CHUNK); queued.length > 0; queued = history.queuedAfter(queued[queued.length - 1]?.id ?? 0, CHUNK)) {
    for (const row of queued) {
      if (known.has(row.id)) continue;
      strategy.linked({ srcId: row.parentId, dstId: row.id, isNew: true, url: row.url, depth: row.depth, anchor: '', context: '', ...linkKind(urlKindOf(row.kind)) });
    }
    yield;
  }
  strategy.takeChanged();
}

/** One stored page: its links as first reported, a site resource's hints again, then its fetched(). */
function replayPage(history: CrawlHistory, page: HistoryPage, strategy: OrderingStrategy, known: Set<number>, limits: StoredResourceLimits, acronyms: readonly Acronym[]): void {
  const outlinks: number[] = [];
  // A stored site resource gives its hints again (re-reading it costs a parse: only for strategies that listen).
  const linkIds = page.kind !== 0 && strategy.hinted !== undefined ? new Map<string, number>() : undefined;
  for (const link of history.links(page.seq)) {
    const context = linkContext(link.contextBefore, link.contextAfter);
    strategy.linked({
      srcId: page.urlId,
      dstId: link.dstId,
      isNew: !known.has(link.dstId),
      url: link.url,
      depth: link.depth,
      anchor: link.anchor,
      context,
      ...linkKind(urlKindOf(link.kind)),
    });
    known.add(link.dstId);
    outlinks.push(link.dstId);
    linkIds?.set(link.url, link.dstId);
  }
  if (linkIds !== undefined) {
    const resource = { url: page.url, kind: urlKindOf(page.kind), status: page.status, body: history.body(page.seq) };
    for (const hint of storedResourceHints(resource, linkIds, limits)) strategy.hinted?.(hint);
  }
  const stored = history.terms(page.seq);
  const terms = stored === null || stored === '' ? [] : stored.split(' ');
  // The acronyms the judge knows come with the first page, as the judge's verdict on the page that defined them did.
  const defined = acronyms.length > 0 ? { acronyms } : {};
  strategy.fetched({ id: page.urlId, relevance: page.relevance ?? 0, hot: page.hot === 1, terms, outlinks, ...defined });
}
