import type { Db } from './database.ts';
import { pageValues, REPLACE_PAGE_SET_SQL, type NewPage } from './page-row.ts';
import type { TextIndexQueue } from './text-index-queue.ts';

/** What a revisit found: the page as stored (304, or a 200 with the same payload), changed, or gone. */
export type RevisitOutcome = 'not-modified' | 'identical' | 'changed' | 'gone';

export const REVISIT_OUTCOMES: readonly RevisitOutcome[] = ['not-modified', 'identical', 'changed', 'gone'];

/** The stored page a revisit is about: what its conditional request and its comparison need. */
export interface StoredVersion {
  seq: number;
  version: number;
  status: number;
  /** The latest version's response headers, as stored. */
  headers: [string, string][];
  bodyHash: string | null;
  goneAt: number | null;
}

/** One answer to a revisit, as the server gave it. */
export interface NewRevisit {
  seq: number;
  version: number;
  outcome: RevisitOutcome;
  status: number;
  httpVersion: string | null;
  statusText: string | null;
  headers: [string, string][];
  requestHead: string | null;
  startedAt: number;
  fetchedAt: number;
  responseMs: number;
  wireBytes: number;
  remoteAddress: string | null;
}

/** The pages columns that hold a version's content, in page_versions' order (the rest are the page's own). */
const VERSION_COLUMNS =
  'status, http_version, status_text, headers, content_type, charset, body, body_bytes, wire_bytes, title, text, relevance, hot, note, ' +
  'started_at, fetched_at, response_ms, remote_address, request_head, payload, body_hash';

/**
 * A stored page's versions and revisits. The pages row keeps the latest version under the
 * page's seq (its identity: links, labels, renders and the full-text index name it); a changed
 * version moves the one it replaces into page_versions, body and all, so no body is copied.
 * Callers wrap each revisit's writes in one transaction.
 */
export class VersionStore {
  readonly #stored;
  readonly #insertRevisit;
  readonly #afterRevisit;
  readonly #archive;
  readonly #indexArchived;
  readonly #currentText;
  readonly #unindexCurrent;
  readonly #dropLinks;
  readonly #dropRender;
  readonly #dropRequisites;
  readonly #replace;
  readonly #indexCurrent;

  readonly #textIndex: TextIndexQueue | undefined;

  /** `textIndex`: the crawl's batches of new pages' text, indexed before a version changes the index. */
  constructor(db: Db, textIndex?: TextIndexQueue) {
    this.#textIndex = textIndex;
    this.#stored = db.prepare(
      'SELECT seq, version, status, headers, body_hash AS bodyHash, gone_at AS goneAt FROM pages WHERE url_id = ?',
    );
    this.#insertRevisit = db.prepare(
      `INSERT INTO revisits (page_seq, version, outcome, status, http_version, status_text, headers, request_head, started_at, fetched_at, response_ms, wire_bytes, remote_address)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#afterRevisit = db.prepare(
      `UPDATE pages SET checked_at = ?, revisit_count = revisit_count + 1, change_count = change_count + ?,
         gone_at = CASE WHEN ? THEN coalesce(gone_at, ?) ELSE NULL END WHERE seq = ?`,
    );
    this.#archive = db.prepare(
      `INSERT INTO page_versions (page_seq, version, ${VERSION_COLUMNS}, duplicate_of)
       SELECT seq, version, ${VERSION_COLUMNS}, CASE WHEN duplicate_kind = 'exact' THEN duplicate_of END FROM pages WHERE seq = ?`,
    );
    this.#indexArchived = db.prepare('INSERT INTO versions_fts (rowid, title, text) VALUES (?, ?, ?)');
    this.#currentText = db.prepare('SELECT noindex, title, text FROM pages WHERE seq = ?');
    this.#unindexCurrent = db.prepare("INSERT INTO pages_fts (pages_fts, rowid, title, text) VALUES ('delete', ?, ?, ?)");
    this.#indexCurrent = db.prepare('INSERT INTO pages_fts (rowid, title, text) VALUES (?, ?, ?)');
    this.#dropLinks = db.prepare('DELETE FROM links WHERE src_seq = ?');
    this.#dropRender = db.prepare('DELETE FROM renders WHERE page_seq = ?');
    this.#dropRequisites = db.prepare('DELETE FROM requisites WHERE page_seq = ?');
    this.#replace = db.prepare(
      // SQLite reads every column on the right of SET as it was before the update: first_fetched_at takes the replaced version's fetched_at.
      `UPDATE pages SET ${REPLACE_PAGE_SET_SQL}, version = version + 1, first_fetched_at = coalesce(first_fetched_at, fetched_at), checked_at = ?,
         revisit_count = revisit_count + 1, change_count = change_count + 1, gone_at = NULL
       WHERE seq = ?`,
    );
  }

  /** The latest stored version of the URL's page, or undefined when it has none. */
  latest(urlId: number): StoredVersion | undefined {
    const row = this.#stored.get(urlId) as (Omit<StoredVersion, 'headers'> & { headers: string }) | undefined;
    if (row === undefined) return undefined;
    return { ...row, headers: parseHeaders(row.headers) };
  }

  /** Records a revisit that stored no new version: the page's last check, its counts for the change rate, and whether it is gone. */
  recordRevisit(r: NewRevisit): void {
    this.#insertRevisitRow(r);
    const gone = r.outcome === 'gone';
    this.#afterRevisit.run(r.fetchedAt, gone ? 1 : 0, gone ? 1 : 0, r.fetchedAt, r.seq);
  }

  /**
   * A changed page: the version it replaces moves to page_versions (and its text to the
   * versions' full-text index), the pages row takes the new one with its links dropped for the
   * caller to store again, and the revisit is recorded as 'changed'.
   */
  replaceVersion(r: NewRevisit, p: NewPage): void {
    // The index must hold what it is told to forget: the page's text may still wait in the batch.
    this.#textIndex?.flush();
    // The version replaced is the one the page row holds: its text leaves the latest versions' index for the earlier ones'.
    const replaced = this.#currentText.get(r.seq) as { noindex: number; title: string | null; text: string | null };
    const archivedId = Number(this.#archive.run(r.seq).lastInsertRowid);
    if (replaced.noindex === 0 && (replaced.title || replaced.text)) {
      this.#indexArchived.run(archivedId, replaced.title ?? '', replaced.text ?? '');
      this.#unindexCurrent.run(r.seq, replaced.title ?? '', replaced.text ?? '');
    }
    this.#dropLinks.run(r.seq);
    this.#dropRender.run(r.seq);
    this.#dropRequisites.run(r.seq);
    // The row keeps its url_id: the values after it, then checked_at and the row.
    this.#replace.run(...pageValues(p).slice(1), p.fetchedAt, r.seq);
    if (!p.noindex && (p.title || p.text)) this.#indexCurrent.run(r.seq, p.title ?? '', p.text ?? '');
    this.#insertRevisitRow(r);
  }

  #insertRevisitRow(r: NewRevisit): void {
    this.#insertRevisit.run(
      r.seq, r.version, r.outcome, r.status, r.httpVersion, r.statusText, JSON.stringify(r.headers), r.requestHead,
      r.startedAt, r.fetchedAt, r.responseMs, r.wireBytes, r.remoteAddress,
    );
  }
}

function parseHeaders(json: string): [string, string][] {
  const parsed = JSON.parse(json) as unknown;
  return Array.isArray(parsed) ? (parsed as [string, string][]) : [];
}
