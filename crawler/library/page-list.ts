import type { ReadonlyDb } from '../store/database.ts';

export interface PageSummary {
  seq: number;
  url: string;
  status: number;
  depth: number;
  title: string | null;
  contentType: string | null;
  fetchedAt: string;
  note: string | null;
}

/** Fetched pages in fetch order, streamed so that a large collection is never held in memory. */
export function* listPages(db: ReadonlyDb): Generator<PageSummary> {
  const rows = db
    .prepare(
      `SELECT p.seq, u.url, p.status, u.depth, p.title, p.content_type AS contentType, p.fetched_at AS fetchedAt, p.note
       FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq`,
    )
    .iterate() as IterableIterator<Omit<PageSummary, 'fetchedAt'> & { fetchedAt: number }>;
  for (const row of rows) yield { ...row, fetchedAt: new Date(row.fetchedAt).toISOString() };
}
