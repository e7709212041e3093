import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CollectionError, ForagerError, UsageError } from '../errors.ts';
import { checkpointAndTruncate, openCollection, skipSyncing, type Db } from '../store/database.ts';
import { CollectionBuilder, type ImportSummary } from './collection-builder.ts';
import { ImportError } from './import-error.ts';
import { openWacz } from './read-wacz.ts';

export type { ImportSummary };

function removeCollectionFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/** Puts the finished file at dbPath without ever replacing a file that appeared there meanwhile. */
function placeNew(tempPath: string, dbPath: string): void {
  try {
    // link() fails when the name is taken, where rename() would silently replace it.
    linkSync(tempPath, dbPath);
    rmSync(tempPath);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${dbPath} already exists; import needs a new --db`, { path: dbPath });
    // File systems without hard links: check, then rename.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
  }
  if (existsSync(dbPath)) throw new UsageError(`${dbPath} already exists; import needs a new --db`, { path: dbPath });
  renameSync(tempPath, dbPath);
}

/**
 * `forager import --wacz`: rebuilds a collection from a WACZ that Forager exported. The
 * collection is built in a temporary file beside dbPath and renamed into place only when
 * complete, so a refused or failed import leaves nothing at dbPath.
 *
 * What comes back, and what cannot:
 * - Pages, links, URL rows and the full-text index are made by the crawler's own recorder
 *   and parser from the payloads, so they are what the crawl stored; the crawl's relevance,
 *   hot verdicts, labels and depths come from the metadata records.
 * - Link targets that were not fetched are queued, so `forager resume` continues the crawl.
 *   robots.txt is not in the archive: URLs the crawl found blocked are queued too, and the
 *   resume fetches each host's robots.txt before any page, which blocks them again.
 * - The export holds 2xx pages only, so redirects and error pages of the crawl, and the
 *   URLs that failed, are not in the collection (failed ones are queued again).
 * - A collection keeps one page per URL: of a page's versions it gets the latest (the response
 *   its metadata record refers to), as a page fetched once; earlier versions, answers that
 *   found a page gone, and revisit records are counted in `skipped`, not imported.
 * - Fractions of a millisecond in fetched_at are lost (the export writes ISO dates); labels
 *   get the import's time as labelled_at; the runs table starts empty.
 * - A WACZ whose warcinfo has neither x-forager-settings nor x-forager-query was not written
 *   by Forager and is refused: a collection needs its driving query. A response without a
 *   metadata record is imported with relevance NULL and not hot.
 */
export async function importWacz(waczPath: string, dbPath: string): Promise<ImportSummary> {
  if (existsSync(dbPath)) throw new UsageError(`${dbPath} already exists; import needs a new --db`, { path: dbPath });
  const dir = dirname(resolve(dbPath));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CollectionError(`cannot create ${dbPath}: the folder ${dir} does not exist`, { path: dbPath });
  }
  const archive = await openWacz(waczPath);
  const tempPath = join(dir, `.${basename(dbPath)}.${randomBytes(4).toString('hex')}.importing`);
  let db: Db | undefined;
  let builder: CollectionBuilder | undefined;
  try {
    db = openCollection(tempPath, { create: true });
    // Nothing is gained by syncing a file that a failure deletes whole.
    skipSyncing(db);
    builder = new CollectionBuilder(db, waczPath);
    for await (const record of archive.records()) await builder.add(record);
    const summary = await builder.finish();
    checkpointAndTruncate(db);
    db.close();
    db = undefined;
    placeNew(tempPath, dbPath);
    return summary;
  } catch (err) {
    await builder?.abandon();
    db?.close();
    removeCollectionFiles(tempPath);
    if (err instanceof ForagerError) throw err;
    throw new ImportError(`cannot import ${waczPath}: ${err instanceof Error ? err.message : String(err)}`, { path: waczPath, dbPath }, { cause: err });
  } finally {
    archive.close();
  }
}
