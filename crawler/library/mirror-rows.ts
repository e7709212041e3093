import { storedBodySql } from '../store/stored-body.ts';
import type { ReadonlyDb } from '../store/database.ts';
import type { PageRow } from '../store/page-row.ts';
import { hasDocuments } from './document-columns.ts';

/*
 * What the offline mirror reads of a collection, one page at a time (point queries by seq,
 * so that nothing but the current page is in memory): whether a page has a body, its body
 * with what decodes it, and its row of the mirror's index.
 */

/** Enough stored text for a ~200-character snippet after whitespace is collapsed. */
const SNIPPET_SOURCE_CHARS = 600;

export interface MirrorBodyFacts {
  hasBody: boolean;
  note: string | null;
}

export interface MirrorBodyRow extends Pick<PageRow, 'fetchedAt' | 'contentType' | 'charset' | 'body'> {
  url: string;
}

export interface MirrorIndexFacts {
  url: string;
  title: string | null;
  /** The start of the stored text. */
  text: string | null;
  relevance: number | null;
  hot: boolean;
  /** A document's pages; null for a web page, or a document not read. */
  pageCount: number | null;
}

export class MirrorRows {
  readonly #bodyFacts;
  readonly #body;
  readonly #indexFacts;

  constructor(db: ReadonlyDb) {
    this.#bodyFacts = db.prepare(`SELECT ${storedBodySql(db, 'pages')} IS NOT NULL AS hasBody, note FROM pages WHERE seq = ?`);
    this.#body = db.prepare(
      `SELECT u.url, p.fetched_at AS fetchedAt, p.content_type AS contentType, p.charset, ${storedBodySql(db, 'p')} AS body
         FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`,
    );
    const pageCount = hasDocuments(db) ? '(SELECT d.page_count FROM documents d WHERE d.page_seq = p.seq)' : 'NULL';
    this.#indexFacts = db.prepare(
      `SELECT u.url, p.title, substr(p.text, 1, ${SNIPPET_SOURCE_CHARS}) AS text, p.relevance, p.hot, ${pageCount} AS pageCount
         FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`,
    );
  }

  bodyFacts(seq: number): MirrorBodyFacts | undefined {
    const row = this.#bodyFacts.get(seq) as { hasBody: number; note: string | null } | undefined;
    return row === undefined ? undefined : { hasBody: row.hasBody === 1, note: row.note };
  }

  body(seq: number): MirrorBodyRow | undefined {
    return this.#body.get(seq) as MirrorBodyRow | undefined;
  }

  indexFacts(seq: number): MirrorIndexFacts | undefined {
    const row = this.#indexFacts.get(seq) as (Omit<MirrorIndexFacts, 'hot'> & { hot: number }) | undefined;
    return row === undefined ? undefined : { ...row, hot: row.hot === 1 };
  }
}
