/**
 * The offline mirror of a collection: the selected pages' HTML as files that open in any
 * browser with no network, the selected documents as files (a PDF's bytes as a .pdf, plain
 * text as a .txt), plus an index.html listing them by relevance. A folder, or a zip when
 * `outPath` ends in .zip; either appears under its name only once complete.
 *
 * Two passes over one read snapshot: the first names every page's and document's file
 * (plan.ts), so that the second can rewrite links to them as relative paths while it writes
 * each page, read and sanitised one at a time when the sink asks for it. The index is
 * written first, in relevance order, from the plan's (seq, relevance) pairs, each row's
 * title, URL and snippet read by seq as it is written: nothing but the plan grows with the
 * collection.
 */
import { countSelected } from '../../library/export-selection.ts';
import type { ExportFilter } from '../../protocol/api.ts';
import { readSnapshot, type ReadonlyDb } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { ExportError } from '../export-error.ts';
import { FolderSink } from './folder.ts';
import { mirrorIndexHtml, type MirrorIndexRow } from './index-page.ts';
import { MirrorLinks } from './links.ts';
import type { MirrorFileKind } from './names.ts';
import { mirrorPageHtml } from './page.ts';
import { RenderRows } from '../../library/render-rows.ts';
import type { StoredRequisite } from '../../viewer/sanitize-html.ts';
import { byRelevance, planMirror, type MirrorPlan } from './plan.ts';
import type { MirrorFile, MirrorSink } from './sink.ts';
import { MirrorSource } from './source.ts';
import { ZipSink } from './zip.ts';

export interface MirrorSummary {
  path: string;
  /** Page and document files written (the index not counted). */
  pages: number;
  /** Bytes written: the files' total for a folder, the zip's size for a zip. */
  bytes: number;
}

export interface MirrorOptions {
  /** Cancels the export; the promise then rejects with an ExportError and nothing is left. */
  signal?: AbortSignal;
  /** Called as each page is rendered for writing, with how many are and how many there are. */
  onProgress?(done: number, total: number): void;
}

export function isZipPath(outPath: string): boolean {
  return outPath.toLowerCase().endsWith('.zip');
}

function* indexRows(plan: MirrorPlan, source: MirrorSource): Generator<MirrorIndexRow> {
  for (const i of byRelevance(plan)) {
    const facts = source.indexFacts(plan.seqs[i] as number);
    if (facts !== undefined) yield { ...facts, path: plan.paths[i] as string, kind: plan.kinds[i] as MirrorFileKind };
  }
}

/** The mirror's files, each rendered only when the sink asks for its content. */
function* mirrorFiles(db: ReadonlyDb, filter: ExportFilter, plan: MirrorPlan, source: MirrorSource, options: MirrorOptions): Generator<MirrorFile> {
  const exportedAt = Date.now();
  const query = loadSettings(db)?.query ?? '';
  const total = plan.seqs.length;
  const documents = plan.kinds.filter((kind) => kind !== 'html').length;
  yield {
    path: 'index.html',
    modified: new Date(exportedAt),
    content: () => mirrorIndexHtml({ query, pages: total - documents, documents, exportedAt, filter }, indexRows(plan, source)),
  };
  const links = new MirrorLinks(db, plan.pathOf);
  const pathFor = (absoluteUrl: string): string | undefined => links.pathFor(absoluteUrl);
  // Stored images and stylesheets are inlined into each page (the mirror's policy allows data: images and inline styles).
  const renders = new RenderRows(db);
  const requisite = (absoluteUrl: string): StoredRequisite | undefined => renders.shownResource(absoluteUrl);
  let done = 0;
  for (let i = 0; i < total; i++) {
    const seq = plan.seqs[i] as number;
    const path = plan.paths[i] as string;
    const kind = plan.kinds[i] as MirrorFileKind;
    yield {
      path,
      modified: new Date(plan.fetchedAt[i] as number),
      content: () => {
        if (options.signal?.aborted === true) throw new ExportError('the export was cancelled', { filter });
        const file = kind === 'html' ? pageFile(source, seq, path, pathFor, requisite) : source.documentBytes(seq);
        options.onProgress?.(++done, total);
        return file;
      },
    };
  }
}

/** A page's mirror file: its stored HTML, sanitised, with its links sent into the mirror. */
function pageFile(
  source: MirrorSource,
  seq: number,
  path: string,
  pathFor: (absoluteUrl: string) => string | undefined,
  requisite: (absoluteUrl: string) => StoredRequisite | undefined,
): Buffer {
  const page = source.page(seq);
  if (page === undefined) throw new ExportError(`page ${seq} left the collection during the export`, { seq });
  return Buffer.from(mirrorPageHtml(page, path, pathFor, requisite));
}

/**
 * Writes the offline mirror of the pages `filter` selects to `outPath` (a new or empty
 * folder, or a .zip file). `db` should be a connection of its own (read-only is enough):
 * the export reads one snapshot in a read transaction, as exportCollection does.
 */
export async function exportMirror(db: ReadonlyDb, filter: ExportFilter, outPath: string, options: MirrorOptions = {}): Promise<MirrorSummary> {
  return readSnapshot(db, async () => {
    if (countSelected(db, filter) === 0) throw new ExportError('no page matches this selection, so there is nothing to export', { filter });
    const sink: MirrorSink = isZipPath(outPath) ? new ZipSink(outPath) : new FolderSink(outPath);
    try {
      const source = new MirrorSource(db);
      const plan = planMirror(db, filter, source);
      if (plan.seqs.length === 0) throw new ExportError('none of the selected pages has an HTML body or is a stored document, so there is nothing to mirror', { filter });
      await sink.write(mirrorFiles(db, filter, plan, source, options));
      return { path: outPath, pages: plan.seqs.length, bytes: await sink.commit() };
    } catch (err) {
      await sink.discard();
      throw err;
    }
  });
}
