import type { Db } from './database.ts';
import { INSERT_PAGE_SQL, pageValues, type NewPage } from './page-row.ts';
import type { TextIndexQueue } from './text-index-queue.ts';

export interface NewLink {
  dstId: number;
  anchor: string;
  contextBefore: string;
  contextAfter: string;
}

/**
 * The pages, links and full-text tables. Callers wrap writes in one transaction per page. With
 * a TextIndexQueue (a crawl's), a page's text is indexed with the queue's next batch.
 */
export class PageStore {
  readonly #insertPage;
  readonly #insertFts;
  readonly #insertLink;
  readonly #byBodyHash;
  readonly #simhashes;
  readonly #textIndex: TextIndexQueue | undefined;

  constructor(db: Db, textIndex?: TextIndexQueue) {
    this.#textIndex = textIndex;
    this.#byBodyHash = db.prepare('SELECT seq FROM pages WHERE body_hash = ? AND duplicate_of IS NULL LIMIT 1').pluck();
    this.#simhashes = db.prepare('SELECT seq, simhash FROM pages WHERE seq > ? AND simhash IS NOT NULL AND duplicate_of IS NULL ORDER BY seq LIMIT ?').safeIntegers(true);
    this.#insertPage = db.prepare(INSERT_PAGE_SQL);
    this.#insertFts = db.prepare('INSERT INTO pages_fts (rowid, title, text) VALUES (?, ?, ?)');
    this.#insertLink = db.prepare('INSERT OR IGNORE INTO links (src_seq, dst_id, anchor, context_before, context_after) VALUES (?, ?, ?, ?, ?)');
  }

  /** Stores a fetched page and, unless it asked for noindex or has no text, indexes it. Returns its fetch sequence number. */
  insert(p: NewPage): number {
    const info = this.#insertPage.run(...pageValues(p));
    const seq = Number(info.lastInsertRowid);
    if (p.noindex || !(p.title || p.text)) return seq;
    if (this.#textIndex === undefined) this.#insertFts.run(seq, p.title ?? '', p.text ?? '');
    else this.#textIndex.added();
    return seq;
  }

  /** The first stored page whose body had this hash, and which holds it. */
  withBody(bodyHash: string): number | undefined {
    return this.#byBodyHash.get(bodyHash) as number | undefined;
  }

  /**
   * Original pages' simhashes, in fetch order, to rebuild the near-duplicate index at a run's
   * start: the next `limit` after page `afterSeq`, a chunk at a time, so no statement stays open between chunks.
   */
  simhashesAfter(afterSeq: number, limit: number): { seq: number; simhash: bigint }[] {
    return (this.#simhashes.all(BigInt(afterSeq), BigInt(limit)) as { seq: bigint; simhash: bigint }[]).map((row) => ({ seq: Number(row.seq), simhash: row.simhash }));
  }

  insertLink(srcSeq: number, link: NewLink): void {
    this.#insertLink.run(srcSeq, link.dstId, link.anchor, link.contextBefore, link.contextAfter);
  }
}
