import { EventEmitter } from 'node:events';
import { statSync } from 'node:fs';
import { ReadOnlyError, UsageError } from '../errors.ts';
import { EXPORT_FORMATS } from '../export/run-export.ts';
import { checkUrlRules } from '../engine/url-check.ts';
import { collectionHosts } from '../library/host-rows.ts';
import { versionDiff } from '../library/version-diff.ts';
import { collectionStats, collectionSummary } from '../library/stats.ts';
import { strategyNames } from '../ordering/registry.ts';
import type { CrawlStats } from '../protocol/crawl-stats.ts';
import { FORAGER_VERSION } from '../protocol/settings.ts';
import { loadSettings } from '../store/settings-store.ts';
import type {
  ClusterStatusAnswer, CollectionHost, CollectionInfo, CollectionRef, CrawlStatus, DocumentContent, ExportResult, ForagerApi, FrontierItem, LabReport, PageDetail,
  PageList, PageListInput, PageRef, PageRow, PageVersions, PageVersionsInput, SearchInput, SearchResult, ServiceInfo, UrlRulesCheck, UrlRulesCheckInput, VersionDiff, VersionDiffInput,
} from '../protocol/api.ts';
import { MARK_END, MARK_START } from '../protocol/api.ts';
import type { StoredPageSource } from '../viewer/page-source.ts';
import { ClusterWatch, type ClusterTarget } from './cluster-watch.ts';
import { documentContent, pageDetail, pageVersions, type PageAt } from './page-views.ts';
import type { ForagerServiceEvents } from './service.ts';
import { listShardPages, pageShard, shardPageSource } from './shard-pages.ts';
import { searchShards } from './shard-search.ts';
import { ShardSet } from './shard-set.ts';

/** Hosts the dashboard lists. */
const MAX_LISTED_HOSTS = 50;

/**
 * `forager serve --shards DIR`: a crawl cluster's shards served as one read-only collection,
 * without a merge. Lists and searches are merged across the shards (shard-pages.ts), a page
 * is read from its own shard, and every call that would write (a crawl, a label, a deletion)
 * is refused with a ReadOnlyError; so are the export and the lab, which need one file.
 */
export class ShardService extends EventEmitter<ForagerServiceEvents> implements ForagerApi {
  readonly shards: ShardSet;
  readonly #source: StoredPageSource;
  readonly #cluster: ClusterWatch | null;

  /** `cluster`: the crawl cluster writing the shards, whose live status the Cluster screen shows beside them. */
  constructor(dir: string, cluster?: ClusterTarget) {
    super();
    this.shards = ShardSet.open(dir);
    this.#source = shardPageSource(this.shards);
    this.#cluster = cluster === undefined ? null : new ClusterWatch(cluster);
  }

  /** The viewer's stored pages, read from the shards. */
  pageSource(): StoredPageSource {
    return this.#source;
  }

  /** No export is ever made here. */
  exportFile(): undefined {
    return undefined;
  }

  async info(): Promise<ServiceInfo> {
    const count = this.shards.shards().length;
    return {
      version: FORAGER_VERSION,
      strategies: strategyNames(),
      exportFormats: [...EXPORT_FORMATS],
      location: `${this.shards.dir} (${count} shard${count === 1 ? '' : 's'}, read-only)`,
      canManageCollections: false,
      readOnly: true,
      cluster: this.#cluster === null ? null : { name: this.#cluster.name },
    };
  }

  async listCollections(): Promise<CollectionInfo[]> {
    const shards = this.shards.shards();
    const summaries = shards.map((s) => collectionSummary(s.db));
    const settings = shards.length === 0 ? undefined : loadSettings((shards[0] as (typeof shards)[number]).db);
    const problems = this.shards.problems();
    const earliest = (values: (number | null)[], pick: (a: number, b: number) => number): number | null =>
      values.reduce<number | null>((best, v) => (v === null ? best : best === null ? v : pick(best, v)), null);
    return [
      {
        id: this.shards.id,
        query: settings?.query ?? null,
        seeds: settings?.seeds ?? [],
        pages: summaries.reduce((n, s) => n + s.pages, 0),
        hot: summaries.reduce((n, s) => n + s.hot, 0),
        bytesOnDisk: shards.reduce((n, s) => n + fileSize(`${this.shards.dir}/${s.name}`) + fileSize(`${this.shards.dir}/${s.name}-wal`), 0),
        createdAt: isoOrNull(earliest(summaries.map((s) => s.createdAt), Math.min)),
        lastCrawledAt: isoOrNull(earliest(summaries.map((s) => s.lastCrawledAt), Math.max)),
        crawl: 'idle',
        problem: problems.length === 0 ? null : `some shards cannot be read yet: ${problems.join('; ')}`,
        session: null,
      },
    ];
  }

  async createCollection(): Promise<CollectionInfo> {
    throw this.#readOnly('create a collection');
  }

  async checkUrlRules(input: UrlRulesCheckInput): Promise<UrlRulesCheck> {
    return checkUrlRules(input);
  }

  async deleteCollection(): Promise<void> {
    throw this.#readOnly('delete the collection');
  }

  async forgetSession(): Promise<CollectionInfo> {
    throw this.#readOnly('forget the session');
  }

  async startCrawl(): Promise<CrawlStatus> {
    throw this.#readOnly('start a crawl', 'the cluster\'s workers crawl (forager worker)');
  }

  async refreshCollection(): Promise<CrawlStatus> {
    throw this.#readOnly('refresh pages', 'merge the shards (forager merge) and refresh the merged collection');
  }

  async pauseCrawl(): Promise<CrawlStatus> {
    throw this.#readOnly('pause a crawl', 'the cluster\'s workers crawl (forager worker)');
  }

  async resumeCrawl(): Promise<CrawlStatus> {
    throw this.#readOnly('resume a crawl', 'the cluster\'s workers crawl (forager worker)');
  }

  async stopCrawl(): Promise<CrawlStatus> {
    throw this.#readOnly('stop a crawl', 'the cluster\'s workers crawl (forager worker)');
  }

  /** The shards' figures added up, at rest: this server runs no crawl of them. */
  async crawlStatus(input: CollectionRef): Promise<CrawlStatus> {
    this.shards.check(input.collection);
    const shards = this.shards.shards();
    const { hosts: _hosts, seenCacheHitRate: _hitRate, orderingMs: _orderingMs, ...figures } = sumStats(shards.map((s) => collectionStats(s.db)));
    const settings = shards.length === 0 ? undefined : loadSettings((shards[0] as (typeof shards)[number]).db);
    return { collection: input.collection, state: 'idle', refresh: null, lastOutcome: null, maxPages: settings?.maxPages ?? 0, figures, series: [], hosts: [], problems: [] };
  }

  async frontier(input: CollectionRef): Promise<FrontierItem[]> {
    this.shards.check(input.collection);
    return [];
  }

  async collectionHosts(input: CollectionRef): Promise<CollectionHost[]> {
    this.shards.check(input.collection);
    // A host lives in one partition: each shard's list is whole for its hosts.
    const all = this.shards.shards().flatMap((s) => collectionHosts(s.db, MAX_LISTED_HOSTS));
    return all.sort((a, b) => b.pages - a.pages || (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0)).slice(0, MAX_LISTED_HOSTS);
  }

  async listPages(input: PageListInput): Promise<PageList> {
    this.shards.check(input.collection);
    const { collection: _collection, ...query } = input;
    return listShardPages(this.shards.shards(), query);
  }

  async searchPages(input: SearchInput): Promise<SearchResult[]> {
    this.shards.check(input.collection);
    return searchShards(this.shards.shards(), input.text, { limit: input.limit ?? 50, marks: [MARK_START, MARK_END], allVersions: input.allVersions === true });
  }

  async getPage(input: PageRef): Promise<PageDetail> {
    return pageDetail(this.#pageAt(input));
  }

  async readDocument(input: PageRef): Promise<DocumentContent> {
    return documentContent(this.#pageAt(input));
  }

  async openDocument(input: PageRef): Promise<void> {
    throw new UsageError('only the desktop app opens a document in the system\'s viewer; save the file and open it from there', { ...input });
  }

  async pageVersions(input: PageVersionsInput): Promise<PageVersions> {
    return pageVersions(this.#pageAt(input), input.order ?? 'newest-first');
  }

  async versionDiff(input: VersionDiffInput): Promise<VersionDiff> {
    const at = this.#pageAt(input);
    return { ...versionDiff(at.db, at.seq, input.from, input.to), seq: input.seq };
  }

  async labelPage(): Promise<PageRow> {
    throw this.#readOnly('label a page', 'merge the shards (forager merge) and label in the merged collection, or label through the cluster (forager cluster label)');
  }

  async setHostRender(): Promise<void> {
    throw this.#readOnly('change how a host is rendered');
  }

  async exportCollection(): Promise<ExportResult> {
    throw new UsageError('the shards are exported as one collection: merge them first (forager merge --dir DIR --db FILE), then export the merged file', { dir: this.shards.dir });
  }

  async runLab(): Promise<LabReport> {
    throw new UsageError('the lab replays one collection: merge the shards first (forager merge --dir DIR --db FILE), then run the lab on the merged file', { dir: this.shards.dir });
  }

  async clusterStatus(): Promise<ClusterStatusAnswer> {
    if (this.#cluster === null) return { configured: false };
    return { configured: true, status: await this.#cluster.status() };
  }

  async close(): Promise<void> {
    this.#cluster?.close();
    this.shards.close();
  }

  #pageAt(input: PageRef): PageAt {
    this.shards.check(input.collection);
    const at = pageShard(this.shards, input.seq);
    if (at === undefined) throw new UsageError(`there is no page number ${input.seq} in "${input.collection}"`, { seq: input.seq });
    return { db: at.shard.db, seq: at.seq, collection: input.collection, shownSeq: input.seq };
  }

  #readOnly(what: string, instead = 'merge the shards (forager merge) into a collection of their own'): ReadOnlyError {
    return new ReadOnlyError(`cannot ${what}: the shards of ${this.shards.dir} are served read-only (forager serve --shards); ${instead}`, { dir: this.shards.dir });
  }
}

/** The shards' stats as one crawl's: counts added, rates figured again from the sums. */
function sumStats(all: CrawlStats[]): CrawlStats {
  const sum = (pick: (s: CrawlStats) => number): number => all.reduce((n, s) => n + pick(s), 0);
  const fetched = sum((s) => s.fetched);
  const hot = sum((s) => s.hot);
  const elapsedMs = Math.max(0, ...all.map((s) => s.elapsedMs));
  return {
    fetched,
    hot,
    harvestRate: fetched === 0 ? 0 : hot / fetched,
    queued: sum((s) => s.queued),
    inflight: sum((s) => s.inflight),
    failed: sum((s) => s.failed),
    robotsBlocked: sum((s) => s.robotsBlocked),
    skipped: sum((s) => s.skipped),
    hosts: sum((s) => s.hosts),
    seenCacheHitRate: 0,
    pagesPerSecond: elapsedMs === 0 ? 0 : fetched / (elapsedMs / 1000),
    bytesFetched: sum((s) => s.bytesFetched),
    elapsedMs,
    rendered: sum((s) => s.rendered),
    documents: sum((s) => s.documents),
  };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
