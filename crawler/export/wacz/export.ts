import { parse as parsePath } from 'node:path';
import { ZipFile } from 'yazl';
import type { ExportFilter } from '../../protocol/api.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { tryCanonicalize } from '../../url/canonical.ts';
import { AtomicFile } from '../atomic-file.ts';
import { cdxjLine, indexMime, sortCdxjLines } from './cdxj.ts';
import {
  DATAPACKAGE_PATH,
  datapackageJson,
  DIGEST_PATH,
  digestJson,
  INDEX_PATH,
  pageLine,
  pagesHeaderLine,
  PAGES_PATH,
  WARC_NAME,
  WARC_PATH,
  type PackageFacts,
} from './package.ts';
import { SpoolFile, type SpooledFile } from './spool.ts';
import { requireSelection, writeWarcSnapshot, type ArchiveSummary } from '../warc/export.ts';
import { sha256Digest } from '../warc/records.ts';
import type { WrittenCapture, WrittenResponse } from '../warc/writer.ts';

/** Index lines joined per write: fewer, larger writes. */
const INDEX_LINES_PER_WRITE = 1024;

/**
 * Writes the selected pages as a WACZ 1.1.1 file (docs/archive-format.md). The WARC and
 * the page list are spooled to temporary files next to `path` while the collection is
 * read, then stored (not deflated) in the zip with the sorted index and the data package;
 * the file appears under its name only once complete, and the temporary files are
 * removed whatever happens.
 */
export async function exportWacz(db: ReadonlyDb, filter: ExportFilter, path: string): Promise<ArchiveSummary> {
  requireSelection(db, filter);
  const out = new AtomicFile(path);
  const spooled: SpoolFile[] = [];
  const spool = (suffix: string): SpoolFile => {
    const file = new SpoolFile(path, suffix);
    spooled.push(file);
    return file;
  };
  try {
    const settings = loadSettings(db);
    const query = settings?.query ?? '';
    const collectionId = parsePath(db.name).name;
    const title = query !== '' ? query : collectionId;
    const warc = spool('warc.gz');
    const pageList = spool('pages.jsonl');
    await pageList.write(pagesHeaderLine(title));
    const index: string[] = [];
    const mainPage = new MainPageChooser(settings?.seeds ?? []);
    const onResponse = async (written: WrittenResponse): Promise<void> => {
      const { page } = written;
      index.push(
        cdxjLine({
          url: page.url,
          date: written.capturedAt,
          mime: indexMime(page.contentType),
          status: page.status,
          payloadDigest: written.payloadDigest,
          offset: written.offset,
          length: written.length,
          filename: WARC_NAME,
        }),
      );
      mainPage.consider(page.url, written.capturedAt);
      await pageList.write(pageLine(written));
    };
    // Every other capture is indexed too: earlier versions and revisits put each on the page's timeline, subresources and rendered DOMs let a replay find a page's scripts and styles.
    const onCapture = (capture: WrittenCapture): void => {
      index.push(cdxjLine({ url: capture.url, date: capture.capturedAt, mime: capture.mime, status: capture.status, payloadDigest: capture.payloadDigest, offset: capture.offset, length: capture.length, filename: WARC_NAME }));
    };
    const written = await writeWarcSnapshot(db, filter, { filename: WARC_NAME, sink: warc, onResponse, onCapture });
    const indexFile = spool('cdxj');
    const lines = sortCdxjLines(index);
    for (let i = 0; i < lines.length; i += INDEX_LINES_PER_WRITE) {
      await indexFile.write(`${lines.slice(i, i + INDEX_LINES_PER_WRITE).join('\n')}\n`);
    }
    const files = { warc: await warc.finish(), index: await indexFile.finish(), pages: await pageList.finish() };
    const created = new Date();
    const facts: PackageFacts = {
      title,
      description: `${written.pages} pages crawled by Forager${query !== '' ? ` for the query "${query}"` : ''} (collection ${collectionId}).`,
      created,
      mainPage: mainPage.chosen,
      resources: [
        { path: WARC_PATH, file: files.warc },
        { path: INDEX_PATH, file: files.index },
        { path: PAGES_PATH, file: files.pages },
      ],
    };
    const datapackage = datapackageJson(facts);
    await writeZip(out, facts.resources, [
      { path: DATAPACKAGE_PATH, buffer: datapackage },
      { path: DIGEST_PATH, buffer: digestJson(sha256Digest(datapackage)) },
    ], created);
    await out.commit();
    return { path, pages: written.pages, records: written.records, bytes: out.bytes };
  } catch (err) {
    out.discard();
    throw err;
  } finally {
    for (const file of spooled) file.remove();
  }
}

/** The first seed that is in the archive, else the first page written. */
class MainPageChooser {
  readonly #seedRank = new Map<string, number>();
  #rank = Infinity;
  chosen: { url: string; capturedAt: number } | undefined;

  constructor(seeds: readonly string[]) {
    seeds.forEach((seed, rank) => {
      const canonical = tryCanonicalize(seed);
      if (canonical.ok && !this.#seedRank.has(canonical.url)) this.#seedRank.set(canonical.url, rank);
    });
  }

  consider(url: string, capturedAt: number): void {
    const rank = this.#seedRank.get(url) ?? Infinity;
    if (this.chosen === undefined || rank < this.#rank) {
      this.chosen = { url, capturedAt };
      this.#rank = rank;
    }
  }
}

interface ZipBuffer {
  path: string;
  buffer: Buffer;
}

/** Every entry stored, not deflated: WACZ readers seek into the WARC by offset. */
async function writeZip(out: AtomicFile, files: { path: string; file: SpooledFile }[], buffers: ZipBuffer[], mtime: Date): Promise<void> {
  const zip = new ZipFile();
  const failed = new Promise<never>((_resolve, reject) => zip.on('error', reject));
  failed.catch(() => undefined);
  const options = { compress: false, mtime, mode: 0o100644 };
  for (const { path, file } of files) zip.addFile(file.path, path, options);
  for (const { path, buffer } of buffers) zip.addBuffer(buffer, path, options);
  zip.end();
  const copy = async (): Promise<void> => {
    for await (const chunk of zip.outputStream) await out.write(chunk as Buffer);
  };
  await Promise.race([copy(), failed]);
}
