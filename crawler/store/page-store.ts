import type { Db } from './database.ts';

export interface NewPage {
  urlId: number;
  status: number;
  httpVersion: string | null;
  statusText: string | null;
  headers: [string, string][];
  contentType: string | null;
  charset: string | null;
  body: Buffer | null;
  bodyBytes: number;
  wireBytes: number;
  title: string | null;
  text: string | null;
  terms: string | null;
  relevance: number | null;
  /** The verdict: the user's label when there is one, else the judge's. */
  hot: boolean;
  /** The judge's own verdict; null when the page was not judged. */
  judgedHot: boolean | null;
  noindex: boolean;
  nofollow: boolean;
  canonical: string | null;
  redirectTo: number | null;
  note: string | null;
  startedAt: number;
  fetchedAt: number;
  responseMs: number;
  remoteAddress: string | null;
  /** The request line and headers exactly as sent. */
  requestHead: string | null;
  /** The body as received, when a Content-Encoding made it differ from `body`'s contents. */
  payload: Buffer | null;
  /** simhashToInt of the text's simhash. */
  simhash: bigint | null;
  bodyHash: string | null;
  /** The earlier page this one duplicates: 'exact' stores no body or payload of its own. */
  duplicateOf: { seq: number; kind: 'exact' | 'near' } | null;
  soft404: boolean;
}

export interface NewLink {
  dstId: number;
  anchor: string;
  contextBefore: string;
  contextAfter: string;
}

/** The pages, links and full-text tables. Callers wrap writes in one transaction per page. */
export class PageStore {
  readonly #insertPage;
  readonly #insertFts;
  readonly #insertLink;
  readonly #byBodyHash;
  readonly #simhashes;

  constructor(db: Db) {
    this.#byBodyHash = db.prepare('SELECT seq FROM pages WHERE body_hash = ? AND duplicate_of IS NULL LIMIT 1').pluck();
    this.#simhashes = db.prepare('SELECT seq, simhash FROM pages WHERE simhash IS NOT NULL AND duplicate_of IS NULL ORDER BY seq').safeIntegers(true);
    this.#insertPage = db.prepare(
      `INSERT INTO pages (url_id, status, http_version, status_text, headers, content_type, charset, body, body_bytes, wire_bytes,
         title, text, terms, relevance, hot, noindex, nofollow, canonical, redirect_to, note, started_at, fetched_at, response_ms, remote_address,
         request_head, payload, judged_hot, simhash, body_hash, duplicate_of, duplicate_kind, soft404)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertFts = db.prepare('INSERT INTO pages_fts (rowid, title, text) VALUES (?, ?, ?)');
    this.#insertLink = db.prepare('INSERT OR IGNORE INTO links (src_seq, dst_id, anchor, context_before, context_after) VALUES (?, ?, ?, ?, ?)');
  }

  /** Stores a fetched page and, unless it asked for noindex or has no text, indexes it. Returns its fetch sequence number. */
  insert(p: NewPage): number {
    const info = this.#insertPage.run(
      p.urlId, p.status, p.httpVersion, p.statusText, JSON.stringify(p.headers), p.contentType, p.charset, p.body, p.bodyBytes,
      p.wireBytes, p.title, p.text, p.terms, p.relevance, p.hot ? 1 : 0, p.noindex ? 1 : 0, p.nofollow ? 1 : 0, p.canonical, p.redirectTo, p.note, p.startedAt,
      p.fetchedAt, p.responseMs, p.remoteAddress, p.requestHead, p.payload, p.judgedHot === null ? null : p.judgedHot ? 1 : 0,
      p.simhash, p.bodyHash, p.duplicateOf?.seq ?? null, p.duplicateOf?.kind ?? null, p.soft404 ? 1 : 0,
    );
    const seq = Number(info.lastInsertRowid);
    if (!p.noindex && (p.title || p.text)) this.#insertFts.run(seq, p.title ?? '', p.text ?? '');
    return seq;
  }

  /** The first stored page whose body had this hash, and which holds it. */
  withBody(bodyHash: string): number | undefined {
    return this.#byBodyHash.get(bodyHash) as number | undefined;
  }

  /** Every original page's simhash, in fetch order, to rebuild the near-duplicate index at a run's start. */
  *simhashes(): IterableIterator<{ seq: number; simhash: bigint }> {
    for (const row of this.#simhashes.iterate() as IterableIterator<{ seq: bigint; simhash: bigint }>) yield { seq: Number(row.seq), simhash: row.simhash };
  }

  insertLink(srcSeq: number, link: NewLink): void {
    this.#insertLink.run(srcSeq, link.dstId, link.anchor, link.contextBefore, link.contextAfter);
  }
}
