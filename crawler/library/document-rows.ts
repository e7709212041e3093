import type { DocumentFacts } from '../parse/documents/document-facts.ts';
import type { DocumentType } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import type { PageRow } from '../store/page-row.ts';
import { documentOf } from '../store/document-store.ts';
import { storedBodySql } from '../store/stored-body.ts';
import { hasDocuments } from './document-columns.ts';

/*
 * A stored document as the viewer hands it out: its file (the bytes as received, for a
 * download, the system's viewer or the app's PDF renderer) and its reading (the extracted
 * text with where each page starts). Only a page's latest version is a document.
 */

export interface DocumentFile extends Pick<PageRow, 'contentType' | 'charset' | 'body' | 'bodyBytes'> {
  /** The canonical URL the document was fetched from. */
  url: string;
  type: DocumentType;
}

export interface DocumentReading {
  text: string;
  facts: DocumentFacts;
}

/** The file of the document stored as page `seq`; undefined when the page is no document (or there is no such page). */
export function documentFile(db: ReadonlyDb, seq: number): DocumentFile | undefined {
  if (!hasDocuments(db)) return undefined;
  return db
    .prepare(
      `SELECT u.url, doc.type, p.content_type AS contentType, p.charset, ${storedBodySql(db, 'p')} AS body, p.body_bytes AS bodyBytes
         FROM documents doc JOIN pages p ON p.seq = doc.page_seq JOIN urls u ON u.id = p.url_id
        WHERE doc.page_seq = ?`,
    )
    .get(seq) as DocumentFile | undefined;
}

/** The text and facts read from the document stored as page `seq`; undefined when the page is no document. */
export function documentReading(db: ReadonlyDb, seq: number): DocumentReading | undefined {
  if (!hasDocuments(db)) return undefined;
  const facts = documentOf(db, seq);
  if (facts === null) return undefined;
  const text = db.prepare('SELECT text FROM pages WHERE seq = ?').pluck().get(seq) as string | null | undefined;
  return { text: text ?? '', facts };
}

/** The document facts of page `seq`, or null for a web page (and in collections older than documents). */
export function documentFactsOf(db: ReadonlyDb, seq: number): DocumentFacts | null {
  return hasDocuments(db) ? documentOf(db, seq) : null;
}
