import { countSelected, selectedPages } from '../library/export-selection.ts';
import { PageFacts } from '../library/page-facts.ts';
import type { ExportFilter, ExportFormat } from '../protocol/api.ts';
import { readSnapshot, type ReadonlyDb } from '../store/database.ts';
import { loadSettings } from '../store/settings-store.ts';
import { AtomicFile } from './atomic-file.ts';
import { CSV_HEADER, csvLine } from './csv-format.ts';
import { ExportError } from './export-error.ts';
import { jsonlLine } from './jsonl-format.ts';
import { exportMirror } from './mirror/export.ts';
import { exportWacz } from './wacz/export.ts';
import { exportWarc } from './warc/export.ts';

export type { ExportFormat };
export const EXPORT_FORMATS: readonly ExportFormat[] = ['warc', 'wacz', 'jsonl', 'csv', 'mirror'];

export interface ExportSummary {
  path: string;
  format: ExportFormat;
  pages: number;
  bytes: number;
}

/**
 * Writes the selected pages of a collection to `path` in `format` (a mirror is a folder, or
 * a zip when `path` ends in .zip). Every format streams and appears under its name only
 * once complete. `db` should be a connection of its own (read-only is enough), so that a
 * crawl writing on another connection is not disturbed and the export sees one snapshot.
 */
export async function exportCollection(db: ReadonlyDb, format: ExportFormat, filter: ExportFilter, path: string): Promise<ExportSummary> {
  switch (format) {
    case 'warc':
      return { ...(await exportWarc(db, filter, path)), format };
    case 'wacz':
      return { ...(await exportWacz(db, filter, path)), format };
    case 'mirror':
      return { ...(await exportMirror(db, filter, path)), format };
    default:
      return exportLines(db, format, filter, path);
  }
}

/**
 * Writes the selected pages of a collection to `path` as JSONL or CSV, streaming: rows are read
 * in batches and written with back-pressure, and the file appears under its name only once
 * complete. `db` should be a connection of its own (read-only is enough), so that a crawl
 * writing on another connection is not disturbed and the export sees one snapshot.
 */
async function exportLines(db: ReadonlyDb, format: 'jsonl' | 'csv', filter: ExportFilter, path: string): Promise<ExportSummary> {
  if (countSelected(db, filter) === 0) throw new ExportError('no page matches this selection, so there is nothing to export', { filter });
  const query = loadSettings(db)?.query ?? '';
  const facts = new PageFacts(db);
  const file = new AtomicFile(path);
  let pages = 0;
  try {
    // One read transaction: the export is a consistent snapshot even while a crawl writes.
    await readSnapshot(db, async () => {
      if (format === 'csv') await file.write(CSV_HEADER);
      for (const page of selectedPages(db, filter)) {
        await file.write(format === 'csv' ? csvLine(page) : jsonlLine(page, facts, query));
        pages++;
      }
    });
    await file.commit();
  } catch (err) {
    file.discard();
    throw err;
  }
  return { path, format, pages, bytes: file.bytes };
}
