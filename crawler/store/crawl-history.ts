import { storedBodySql } from './stored-body.ts';
import type { ReadonlyDb } from './database.ts';
import { UrlState } from './url-state.ts';

/*
 * What a crawl's history replay reads back (library/history-replay.ts, when a crawl resumes
 * and for explain): the seeds' rows, the stored pages in fetch order, each page's links,
 * terms and body, and the queued URLs. Read-only: it runs on a reader's connection too.
 * URL kinds are the stored codes (url-kind.ts decodes them).
 */

export interface HistoryUrl {
  url: string;
  depth: number;
  kind: number;
}

export interface HistoryPage {
  seq: number;
  urlId: number;
  url: string;
  kind: number;
  status: number;
  relevance: number | null;
  hot: number;
}

export interface HistoryLink {
  dstId: number;
  url: string;
  depth: number;
  kind: number;
  anchor: string;
  contextBefore: string;
  contextAfter: string;
}

export interface HistoryQueuedUrl {
  id: number;
  url: string;
  depth: number;
  parentId: number | null;
  kind: number;
}

export class CrawlHistory {
  readonly #url;
  readonly #terms;
  readonly #body;
  readonly #links;
  readonly #pagesAfter;
  readonly #queuedAfter;

  constructor(db: ReadonlyDb) {
    this.#url = db.prepare('SELECT url, depth, kind FROM urls WHERE id = ?');
    this.#terms = db.prepare('SELECT terms FROM pages WHERE seq = ?').pluck();
    this.#body = db.prepare(`SELECT ${storedBodySql(db, 'pages')} FROM pages WHERE seq = ?`).pluck();
    this.#links = db.prepare(
      `SELECT l.dst_id AS dstId, u.url, u.depth, u.kind, l.anchor, l.context_before AS contextBefore, l.context_after AS contextAfter
       FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ?`,
    );
    this.#pagesAfter = db.prepare(
      'SELECT p.seq, p.url_id AS urlId, u.url, u.kind, p.status, p.relevance, p.hot FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq > ? ORDER BY p.seq LIMIT ?',
    );
    this.#queuedAfter = db.prepare(`SELECT id, url, depth, parent_id AS parentId, kind FROM urls WHERE state = ${UrlState.queued} AND id > ? ORDER BY id LIMIT ?`);
  }

  url(id: number): HistoryUrl | undefined {
    return this.#url.get(id) as HistoryUrl | undefined;
  }

  /**
   * The next `limit` stored pages in fetch order after `afterSeq`: read a chunk at a time, so
   * that no statement stays open between chunks (the replay reads each page's links as it
   * goes, and yields to the event loop between chunks).
   */
  pagesAfter(afterSeq: number, limit: number): HistoryPage[] {
    return this.#pagesAfter.all(afterSeq, limit) as HistoryPage[];
  }

  links(seq: number): HistoryLink[] {
    return this.#links.all(seq) as HistoryLink[];
  }

  /** The page's stored terms, space-separated; null or '' when it has none. */
  terms(seq: number): string | null {
    return this.#terms.get(seq) as string | null;
  }

  /** The gzipped body as stored, or null. */
  body(seq: number): Buffer | null {
    return this.#body.get(seq) as Buffer | null;
  }

  /** The next `limit` URLs waiting in the queue after id `afterId`, in id order (a chunk at a time, as pagesAfter). */
  queuedAfter(afterId: number, limit: number): HistoryQueuedUrl[] {
    return this.#queuedAfter.all(afterId, limit) as HistoryQueuedUrl[];
  }
}
