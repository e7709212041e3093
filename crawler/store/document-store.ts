import type { DocumentFacts, DocumentType } from '../parse/documents/document-facts.ts';
import type { Db, ReadonlyDb } from './database.ts';

/** A `documents` row as stored. */
interface DocumentRow {
  type: string;
  pageCount: number;
  pagesRead: number;
  pageStarts: string;
  metadata: string;
}

/** What is kept of a document beside its page row; written in the page's transaction. */
export class DocumentStore {
  readonly #put;
  readonly #drop;

  constructor(db: Db) {
    this.#put = db.prepare(
      'INSERT OR REPLACE INTO documents (page_seq, type, page_count, pages_read, page_starts, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#drop = db.prepare('DELETE FROM documents WHERE page_seq = ?');
  }

  /** The page's document facts, or none (a new version of the page is no longer a document). */
  save(seq: number, facts: DocumentFacts | null): void {
    if (facts === null) {
      this.#drop.run(seq);
      return;
    }
    this.#put.run(seq, facts.type, facts.pageCount, facts.pagesRead, JSON.stringify(facts.pageStarts), JSON.stringify(facts.metadata));
  }
}

/** The document facts of a stored page, or null when it is a web page. Read models and exports use it. */
export function documentOf(db: ReadonlyDb, seq: number): DocumentFacts | null {
  const row = db
    .prepare('SELECT type, page_count AS pageCount, pages_read AS pagesRead, page_starts AS pageStarts, metadata FROM documents WHERE page_seq = ?')
    .get(seq) as DocumentRow | undefined;
  return row === undefined ? null : factsOf(row);
}

/** A stored row as DocumentFacts; a damaged JSON column reads as empty rather than failing the read. */
function factsOf(row: DocumentRow): DocumentFacts {
  return {
    type: row.type as DocumentType,
    pageCount: row.pageCount,
    pagesRead: row.pagesRead,
    pageStarts: pageStartsOf(row.pageStarts) ?? [],
    metadata: parseJson(row.metadata, {} as Record<string, string>, (v): v is Record<string, string> => typeof v === 'object' && v !== null && !Array.isArray(v)),
  };
}

/** A stored page_starts column (a JSON array of offsets), or undefined when it is damaged or empty. */
export function pageStartsOf(json: string): number[] | undefined {
  const starts = parseJson<number[] | undefined>(json, undefined, (value): value is number[] => Array.isArray(value) && value.every((n) => typeof n === 'number'));
  return starts === undefined || starts.length === 0 ? undefined : starts;
}

function parseJson<T>(text: string, fallback: T, valid: (value: unknown) => value is T): T;
function parseJson<T>(text: string, fallback: T, valid: (value: unknown) => boolean): T {
  try {
    const value: unknown = JSON.parse(text);
    return valid(value) ? (value as T) : fallback;
  } catch {
    return fallback;
  }
}
