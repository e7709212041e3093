import { gzipSync } from 'node:zlib';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.ts';

/** A subresource as stored for renders and for export. */
export interface StoredSubresource {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
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
  readonly #insertRender: Statement;
  readonly #insertSubresource: Statement;
  readonly #subresource: Statement;
  readonly #insertRequisite: Statement;

  constructor(db: Db) {
    this.#insertRender = db.prepare(
      'INSERT OR REPLACE INTO renders (page_seq, dom, rendered_at, render_ms, timed_out, links_added, requests) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#insertSubresource = db.prepare('INSERT OR IGNORE INTO subresources (url, status, headers, body, fetched_at) VALUES (?, ?, ?, ?, ?)');
    this.#subresource = db.prepare('SELECT status, headers, body FROM subresources WHERE url = ?');
    this.#insertRequisite = db.prepare('INSERT OR IGNORE INTO requisites (page_seq, url) VALUES (?, ?)');
  }

  saveRequisite(pageSeq: number, url: string): void {
    this.#insertRequisite.run(pageSeq, url);
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
