import { basename } from 'node:path';
import { countSelected } from '../../library/export-selection.ts';
import type { ExportFilter } from '../../protocol/api.ts';
import { readSnapshot, type ReadonlyDb } from '../../store/database.ts';
import { AtomicFile } from '../atomic-file.ts';
import { ExportError } from '../export-error.ts';
import { writeWarc, type WarcSink, type WarcWriteOptions, type WarcWriteResult } from './writer.ts';

export interface ArchiveSummary {
  path: string;
  pages: number;
  /** WARC records written (warcinfo, then request, response and metadata per page). */
  records: number;
  /** Size of the file written. */
  bytes: number;
}

export function requireSelection(db: ReadonlyDb, filter: ExportFilter): void {
  if (countSelected(db, filter) === 0) throw new ExportError('no page matches this selection, so there is nothing to export', { filter });
}

/** Runs the WARC writer in one read transaction: the archive is a snapshot even while a crawl writes. */
export async function writeWarcSnapshot(db: ReadonlyDb, filter: ExportFilter, options: WarcWriteOptions): Promise<WarcWriteResult> {
  return readSnapshot(db, () => writeWarc(db, filter, options));
}

/**
 * Writes the selected pages as a WARC 1.1 file (`.warc.gz`, one gzip member per record;
 * docs/archive-format.md), streaming, and under its name only once complete. `db` should
 * be a connection of its own (read-only is enough).
 */
export async function exportWarc(db: ReadonlyDb, filter: ExportFilter, path: string): Promise<ArchiveSummary> {
  requireSelection(db, filter);
  const file = new AtomicFile(path);
  try {
    const sink: WarcSink = { write: (chunk) => file.write(chunk) };
    const written = await writeWarcSnapshot(db, filter, { filename: basename(path), sink });
    await file.commit();
    return { path, pages: written.pages, records: written.records, bytes: file.bytes };
  } catch (err) {
    file.discard();
    throw err;
  }
}
