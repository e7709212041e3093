import { loadSettings } from '../store/settings-store.ts';
import type { Db } from '../store/database.ts';
import { AtomicFile } from './atomic-file.ts';
import { CSV_HEADER, csvLine } from './csv-format.ts';
import { ExportError } from './export-error.ts';
import { jsonlLine } from './jsonl-format.ts';
import { PageFacts } from './page-records.ts';
import { countSelected, type ExportFilter, selectedPages } from './selection.ts';

export type ExportFormat = 'jsonl' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['jsonl', 'csv'];

export interface ExportSummary {
  path: string;
  format: ExportFormat;
  pages: number;
  bytes: number;
}

/**
 * Writes the selected pages of a collection to `path` in `format`, streaming: rows are read
 * in batches and written with back-pressure, and the file appears under its name only once
 * complete. `db` should be a connection of its own (read-only is enough), so that a crawl
 * writing on another connection is not disturbed and the export sees one snapshot.
 */
export async function exportCollection(db: Db, format: ExportFormat, filter: ExportFilter, path: string): Promise<ExportSummary> {
  if (countSelected(db, filter) === 0) throw new ExportError('no page matches this selection, so there is nothing to export', { filter });
  const query = loadSettings(db)?.query ?? '';
  const facts = new PageFacts(db);
  const file = new AtomicFile(path);
  let pages = 0;
  try {
    // One read transaction: the export is a consistent snapshot even while a crawl writes.
    db.exec('BEGIN');
    try {
      if (format === 'csv') await file.write(CSV_HEADER);
      for (const page of selectedPages(db, filter)) {
        await file.write(format === 'csv' ? csvLine(page) : jsonlLine(page, facts, query));
        pages++;
      }
    } finally {
      db.exec('COMMIT');
    }
    await file.commit();
  } catch (err) {
    file.discard();
    throw err;
  }
  return { path, format, pages, bytes: file.bytes };
}
