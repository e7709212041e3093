import type { Db } from '../store/database.ts';
import { PageStore } from '../store/page-store.ts';

/*
 * The merge's writes to the new collection. Pages, their full-text rows and links go through
 * the store's own PageStore, so they are written exactly as a crawl writes them; the other
 * tables are copied row by row with ids the merge chose, which no store offers (a crawl
 * never picks its own ids), so their few statements are here.
 */

/** Rows per transaction: large enough that commits cost little, small enough that the WAL is checkpointed as it goes. */
const BATCH_ROWS = 5000;

export interface HostValues {
  origin: string;
  robotsStatus: number | null;
  robotsBody: Buffer | null;
  robotsFetchedAt: number | null;
  robotsFailures: number;
  pagesFetched: number;
  soft404Probed: number;
  /** Decimal text of the 64-bit simhash, or null. */
  soft404Simhash: string | null;
}

export interface UrlValues {
  /** Decimal text of the 64-bit fingerprint. */
  fp: string;
  url: string;
  hostId: number;
  depth: number;
  state: number;
  parentId: number | null;
  redirects: number;
  attempts: number;
  reason: string | null;
  kind: number;
}

export interface RunValues {
  startedAt: number;
  endedAt: number | null;
  pages: number;
  bytes: number;
  seenLookups: number;
  seenHits: number;
  outcome: string | null;
}

export interface RenderValues {
  dom: Buffer;
  renderedAt: number;
  renderMs: number;
  timedOut: number;
  linksAdded: number;
  requests: string;
}

/** A `documents` row as a shard holds it (JSON columns as text). */
export interface DocumentValues {
  type: string;
  pageCount: number;
  pagesRead: number;
  pageStarts: string;
  metadata: string;
}

export interface SubresourceValues {
  url: string;
  status: number;
  headers: string;
  body: Buffer;
  fetchedAt: number;
}

/** A page's revisit bookkeeping (pages columns since schema 8): how many versions, when first fetched and last checked, gone or not, and its counts. */
export interface PageHistoryValues {
  version: number;
  firstFetchedAt: number | null;
  checkedAt: number | null;
  goneAt: number | null;
  revisitCount: number;
  changeCount: number;
}

/** A page_versions row as a shard holds it, its page_seq and duplicate_of to be given the merged seqs. */
export interface VersionValues {
  version: number;
  status: number;
  httpVersion: string | null;
  statusText: string | null;
  headers: string;
  contentType: string | null;
  charset: string | null;
  body: Buffer | null;
  bodyBytes: number;
  wireBytes: number;
  title: string | null;
  text: string | null;
  relevance: number | null;
  hot: number;
  note: string | null;
  startedAt: number;
  fetchedAt: number;
  responseMs: number;
  remoteAddress: string | null;
  requestHead: string | null;
  payload: Buffer | null;
  bodyHash: string | null;
  duplicateOf: number | null;
}

/** A revisits row as a shard holds it (headers as JSON text). */
export interface RevisitValues {
  version: number;
  outcome: string;
  status: number;
  httpVersion: string | null;
  statusText: string | null;
  headers: string;
  requestHead: string | null;
  startedAt: number;
  fetchedAt: number;
  responseMs: number;
  wireBytes: number;
  remoteAddress: string | null;
}

/** A soft404_folders row; the simhash in decimal text (a number would lose bits), null for a folder that answered a real 404. */
export interface FolderValues {
  folder: string;
  simhash: string | null;
  probedAt: number;
}

/** page_versions' columns after its id, in VersionValues' order (page_seq first). */
const VERSION_COLUMNS =
  'page_seq, version, status, http_version, status_text, headers, content_type, charset, body, body_bytes, wire_bytes, title, text, relevance, hot, note, ' +
  'started_at, fetched_at, response_ms, remote_address, request_head, payload, body_hash, duplicate_of';

const bigOrNull = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

export class MergedCollection {
  readonly db: Db;
  /** The crawl's own writer of pages, full-text rows and links. */
  readonly pages: PageStore;
  #rowsInBatch = 0;
  readonly #insertSetting;
  readonly #insertHost;
  readonly #updateHost;
  readonly #insertUrl;
  readonly #updateUrl;
  readonly #insertRun;
  readonly #putLabel;
  readonly #insertRender;
  readonly #insertDocument;
  readonly #insertSubresource;
  readonly #insertRequisite;
  readonly #insertPending;
  readonly #setPageHistory;
  readonly #insertVersion;
  readonly #indexVersion;
  readonly #insertRevisit;
  readonly #putFolder;

  constructor(db: Db) {
    this.db = db;
    this.pages = new PageStore(db);
    this.#insertSetting = db.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)');
    const hostColumns = 'origin, robots_status, robots_body, robots_fetched_at, robots_failures, pages_fetched, soft404_probed, soft404_simhash';
    this.#insertHost = db.prepare(`INSERT INTO hosts (${hostColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#updateHost = db.prepare(
      `UPDATE hosts SET origin = ?, robots_status = ?, robots_body = ?, robots_fetched_at = ?, robots_failures = ?, pages_fetched = ?, soft404_probed = ?, soft404_simhash = ? WHERE id = ?`,
    );
    this.#insertUrl = db.prepare(
      'INSERT INTO urls (fp, url, host_id, depth, state, parent_id, redirects, attempts, reason, kind, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#updateUrl = db.prepare(
      'UPDATE urls SET fp = ?, url = ?, host_id = ?, depth = ?, state = ?, parent_id = ?, redirects = ?, attempts = ?, reason = ?, kind = ? WHERE id = ?',
    );
    this.#insertRun = db.prepare('INSERT INTO runs (started_at, ended_at, pages, bytes, seen_lookups, seen_hits, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)');
    // Two shards' labels of one URL (labels reach every worker): the later judgement stands.
    this.#putLabel = db.prepare(
      `INSERT INTO labels (url_id, relevant, labelled_at) VALUES (?, ?, ?)
       ON CONFLICT(url_id) DO UPDATE SET relevant = excluded.relevant, labelled_at = excluded.labelled_at WHERE excluded.labelled_at > labels.labelled_at`,
    );
    this.#insertDocument = db.prepare('INSERT OR REPLACE INTO documents (page_seq, type, page_count, pages_read, page_starts, metadata) VALUES (?, ?, ?, ?, ?, ?)');
    this.#insertRender = db.prepare('INSERT OR REPLACE INTO renders (page_seq, dom, rendered_at, render_ms, timed_out, links_added, requests) VALUES (?, ?, ?, ?, ?, ?, ?)');
    // A subresource is fetched once per crawl; two shards that both fetched one keep the first shard's.
    this.#insertSubresource = db.prepare('INSERT OR IGNORE INTO subresources (url, status, headers, body, fetched_at) VALUES (?, ?, ?, ?, ?)');
    this.#insertRequisite = db.prepare('INSERT OR IGNORE INTO requisites (page_seq, url) VALUES (?, ?)');
    this.#insertPending = db.prepare('INSERT OR REPLACE INTO requisites_pending (page_seq, page_url, requisites) VALUES (?, ?, ?)');
    this.#setPageHistory = db.prepare(
      'UPDATE pages SET version = ?, first_fetched_at = ?, checked_at = ?, gone_at = ?, revisit_count = ?, change_count = ? WHERE seq = ?',
    );
    this.#insertVersion = db.prepare(`INSERT INTO page_versions (${VERSION_COLUMNS}) VALUES (${VERSION_COLUMNS.split(',').map(() => '?').join(', ')})`);
    this.#indexVersion = db.prepare('INSERT INTO versions_fts (rowid, title, text) VALUES (?, ?, ?)');
    this.#insertRevisit = db.prepare(
      `INSERT INTO revisits (page_seq, version, outcome, status, http_version, status_text, headers, request_head, started_at, fetched_at, response_ms, wire_bytes, remote_address)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // A folder probed by two shards (its host in two partitions) keeps the later probe: the latest word on what the folder answers.
    this.#putFolder = db.prepare(
      `INSERT INTO soft404_folders (host_id, folder, simhash, probed_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(host_id, folder) DO UPDATE SET simhash = excluded.simhash, probed_at = excluded.probed_at WHERE excluded.probed_at > soft404_folders.probed_at`,
    );
    db.exec('BEGIN');
  }

  /** Counts written rows; every BATCH_ROWS the batch is committed and another begun. */
  wrote(rows = 1): void {
    this.#rowsInBatch += rows;
    if (this.#rowsInBatch < BATCH_ROWS) return;
    this.#rowsInBatch = 0;
    this.db.exec('COMMIT');
    this.db.exec('BEGIN');
  }

  /** Commits the last batch. */
  finish(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** Leaves the last batch uncommitted (the file is about to be deleted). */
  abandon(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  setting(key: string, value: string): void {
    this.#insertSetting.run(key, value);
    this.wrote();
  }

  insertHost(h: HostValues): number {
    const info = this.#insertHost.run(...hostParams(h));
    this.wrote();
    return Number(info.lastInsertRowid);
  }

  updateHost(id: number, h: HostValues): void {
    this.#updateHost.run(...hostParams(h), id);
    this.wrote();
  }

  insertUrl(id: number, u: UrlValues): void {
    this.#insertUrl.run(...urlParams(u), id);
    this.wrote();
  }

  updateUrl(id: number, u: UrlValues): void {
    this.#updateUrl.run(...urlParams(u), id);
    this.wrote();
  }

  insertRun(r: RunValues): void {
    this.#insertRun.run(r.startedAt, r.endedAt, r.pages, r.bytes, r.seenLookups, r.seenHits, r.outcome);
    this.wrote();
  }

  putLabel(urlId: number, relevant: number, labelledAt: number): void {
    this.#putLabel.run(urlId, relevant, labelledAt);
    this.wrote();
  }

  /** A label is ground truth (store/label-store.ts): each labelled page's verdict is its label, whichever shard held the label. */
  applyLabelsToVerdicts(): void {
    this.db.exec('UPDATE pages SET hot = (SELECT l.relevant FROM labels l WHERE l.url_id = pages.url_id) WHERE url_id IN (SELECT url_id FROM labels)');
  }

  insertRender(pageSeq: number, r: RenderValues): void {
    this.#insertRender.run(pageSeq, r.dom, r.renderedAt, r.renderMs, r.timedOut, r.linksAdded, r.requests);
    this.wrote();
  }

  insertDocument(pageSeq: number, d: DocumentValues): void {
    this.#insertDocument.run(pageSeq, d.type, d.pageCount, d.pagesRead, d.pageStarts, d.metadata);
    this.wrote();
  }

  insertSubresource(s: SubresourceValues): void {
    this.#insertSubresource.run(s.url, s.status, s.headers, s.body, s.fetchedAt);
    this.wrote();
  }

  insertRequisite(pageSeq: number, url: string): void {
    this.#insertRequisite.run(pageSeq, url);
    this.wrote();
  }

  insertPendingRequisites(pageSeq: number, pageUrl: string, requisites: string): void {
    this.#insertPending.run(pageSeq, pageUrl, requisites);
    this.wrote();
  }

  /** A stored page's revisit bookkeeping, which PageStore's insert leaves at a new page's defaults. */
  setPageHistory(pageSeq: number, h: PageHistoryValues): void {
    this.#setPageHistory.run(h.version, h.firstFetchedAt, h.checkedAt, h.goneAt, h.revisitCount, h.changeCount, pageSeq);
    this.wrote();
  }

  /** An earlier version of the page `pageSeq`; `indexed`: its text goes into the earlier versions' full-text index, as it was in the shard's. */
  insertVersion(pageSeq: number, v: VersionValues, indexed: boolean): void {
    const id = Number(
      this.#insertVersion.run(
        pageSeq, v.version, v.status, v.httpVersion, v.statusText, v.headers, v.contentType, v.charset, v.body, v.bodyBytes, v.wireBytes, v.title, v.text,
        v.relevance, v.hot, v.note, v.startedAt, v.fetchedAt, v.responseMs, v.remoteAddress, v.requestHead, v.payload, v.bodyHash, v.duplicateOf,
      ).lastInsertRowid,
    );
    if (indexed) this.#indexVersion.run(id, v.title ?? '', v.text ?? '');
    this.wrote();
  }

  insertRevisit(pageSeq: number, r: RevisitValues): void {
    this.#insertRevisit.run(
      pageSeq, r.version, r.outcome, r.status, r.httpVersion, r.statusText, r.headers, r.requestHead, r.startedAt, r.fetchedAt, r.responseMs, r.wireBytes, r.remoteAddress,
    );
    this.wrote();
  }

  putSoft404Folder(hostId: number, f: FolderValues): void {
    this.#putFolder.run(hostId, f.folder, bigOrNull(f.simhash), f.probedAt);
    this.wrote();
  }

  /** Row counts of the finished collection, for the summary. */
  count(table: 'pages' | 'urls' | 'links' | 'hosts' | 'labels' | 'runs' | 'page_versions' | 'revisits' | 'soft404_folders'): number {
    return this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  }
}

function hostParams(h: HostValues): unknown[] {
  return [h.origin, h.robotsStatus, h.robotsBody, h.robotsFetchedAt, h.robotsFailures, h.pagesFetched, h.soft404Probed, bigOrNull(h.soft404Simhash)];
}

function urlParams(u: UrlValues): unknown[] {
  return [BigInt(u.fp), u.url, u.hostId, u.depth, u.state, u.parentId, u.redirects, u.attempts, u.reason, u.kind];
}
