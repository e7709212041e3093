import { gzipSync } from 'node:zlib';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.ts';

/** A subresource as stored for renders and for export. */
export interface StoredSubresource {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A page's requisites left unresolved: only a crawl that fetches them pays for resolving them. */
export interface PageRequisites {
  hrefs: readonly string[];
  /** The URL the page came from, and its <base href> if any (see effectiveBase). */
  pageUrl: string;
  baseHref: string | undefined;
}

export interface RenderRecord {
  pageSeq: number;
  dom: string;
  renderedAt: number;
  renderMs: number;
  timedOut: boolean;
  linksAdded: number;
  requests: [url: string, type: string, outcome: string][];
}

/** Writes of rendering and requisites: the rendered DOM beside its page, subresources once per crawl, and which page needs which. */
export class RenderStore {
  readonly #db: Db;
  readonly #insertRender: Statement;
  readonly #insertSubresource: Statement;
  readonly #subresource: Statement;
  readonly #insertRequisite: Statement;
  readonly #insertPending: Statement;
  readonly #deletePending: Statement;
  readonly #pending: Statement;

  constructor(db: Db) {
    this.#db = db;
    this.#insertRender = db.prepare(
      'INSERT OR REPLACE INTO renders (page_seq, dom, rendered_at, render_ms, timed_out, links_added, requests) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#insertSubresource = db.prepare('INSERT OR IGNORE INTO subresources (url, status, headers, body, fetched_at) VALUES (?, ?, ?, ?, ?)');
    this.#subresource = db.prepare('SELECT status, headers, body FROM subresources WHERE url = ?');
    this.#insertRequisite = db.prepare('INSERT OR IGNORE INTO requisites (page_seq, url) VALUES (?, ?)');
    this.#insertPending = db.prepare('INSERT OR REPLACE INTO requisites_pending (page_seq, page_url, requisites) VALUES (?, ?, ?)');
    this.#deletePending = db.prepare('DELETE FROM requisites_pending WHERE page_seq = ?');
    this.#pending = db.prepare('SELECT page_seq AS pageSeq, page_url AS pageUrl, requisites FROM requisites_pending ORDER BY page_seq');
  }

  /** Notes that a page's requisites are to be fetched (in the page's own transaction, so that a kill cannot lose the errand). */
  savePendingRequisites(pageSeq: number, pageUrl: string, requisites: PageRequisites): void {
    this.#insertPending.run(pageSeq, pageUrl, JSON.stringify(requisites));
  }

  /**
   * Records the requisites stored for a page, and when `allSought` clears its pending note,
   * in one transaction: one commit per page rather than one per requisite.
   */
  saveRequisites(pageSeq: number, urls: readonly string[], allSought: boolean): void {
    if (urls.length === 0 && !allSought) return;
    this.#db.transaction(() => {
      for (const url of urls) this.#insertRequisite.run(pageSeq, url);
      if (allSought) this.#deletePending.run(pageSeq);
    }).immediate();
  }

  /** Pages whose requisites a run left unfetched (paused, killed), oldest first. */
  pendingRequisites(): { pageSeq: number; pageUrl: string; requisites: PageRequisites }[] {
    return (this.#pending.all() as { pageSeq: number; pageUrl: string; requisites: string }[]).map((row) => ({ ...row, requisites: JSON.parse(row.requisites) as PageRequisites }));
  }

  saveRender(r: RenderRecord): void {
    this.#insertRender.run(r.pageSeq, gzipSync(r.dom), r.renderedAt, Math.round(r.renderMs), r.timedOut ? 1 : 0, r.linksAdded, JSON.stringify(r.requests));
  }

  saveSubresource(url: string, resource: StoredSubresource, fetchedAt: number): void {
    this.#insertSubresource.run(url, resource.status, JSON.stringify(resource.headers), resource.body, fetchedAt);
  }

  subresource(url: string): StoredSubresource | undefined {
    const row = this.#subresource.get(url) as { status: number; headers: string; body: Buffer } | undefined;
    return row === undefined ? undefined : { status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body };
  }
}
