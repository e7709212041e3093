import { checkpointAndTruncate, openCollection, skipSyncing, type Db } from '../store/database.ts';
import { DeferredIndexes } from './deferred-indexes.ts';
import { MergedCollection } from './merged-collection.ts';
import { mergeHosts } from './merge-hosts.ts';
import { mergePages } from './merge-pages.ts';
import { mergeLabels, mergeRuns, mergeSoft404Folders, mergeSubresources } from './merge-records.ts';
import { mergeCookies } from './merge-cookies.ts';
import { checkSameCrawl, copySettings } from './merge-settings.ts';
import { mergeUrls } from './merge-urls.ts';
import { mergeRevisits, mergeVersions } from './merge-versions.ts';
import { checkOutPath, placeMerged, removeCollectionFiles, temporaryPath } from './out-file.ts';
import { findShards } from './shard-files.ts';
import { ShardReader } from './shard-reader.ts';

/*
 * `forager merge`: a crawl cluster's shards (DATA/shard-NNN.forager, one per partition that
 * had work) made into one ordinary collection, with the pages' earlier versions, revisits and
 * soft-404 probes, which serve, search, export, lab and label use as any other. Each shard is
 * read in one snapshot, read-only, so a running crawl's shards can be merged; the new
 * collection is created at the current schema through the store and renamed into place only
 * when complete.
 *
 * Memory: the merge keeps a few bytes per URL and page in typed arrays (each shard's ids to
 * the new ids, a fingerprint table while URLs are merged, five bytes of marks per URL), and
 * SQLite's page caches; rows are streamed (a page's row is read when its turn comes) and
 * written in batched transactions, with the big indexes built once at the end.
 */

export interface MergeOptions {
  /** Replace an existing output collection. */
  force?: boolean;
}

export interface MergeSummary {
  /** The collection written. */
  path: string;
  shards: number;
  pages: number;
  urls: number;
  links: number;
  hosts: number;
  runs: number;
  labels: number;
  /** URLs a shard knew only as another partition's stub, whose owner's row replaced the stub. */
  stubsResolved: number;
  /** Pages left out because another shard had stored the same URL's page first. */
  conflicts: number;
  /** Two URLs with one fingerprint in different shards, kept as one (as a shard's own seen test would). */
  urlClashes: number;
  /** Duplicates (pages and earlier versions) whose original was a conflict left out or came later: kept with their own bytes, unmarked. */
  unlinkedDuplicates: number;
  /** Earlier versions of the pages kept (page_versions rows). */
  versions: number;
  /** Revisits of the pages kept. */
  revisits: number;
  /** Folders' soft-404 probes. */
  soft404Folders: number;
  seconds: number;
}

export function mergeShards(dir: string, out: string, options: MergeOptions = {}): MergeSummary {
  const started = performance.now();
  const force = options.force === true;
  const files = findShards(dir);
  checkOutPath(out, force, files.map((file) => file.path));
  const shards: ShardReader[] = [];
  let temp: string | undefined;
  let db: Db | undefined;
  let merged: MergedCollection | undefined;
  try {
    for (const file of files) shards.push(ShardReader.open(file));
    checkSameCrawl(shards);
    temp = temporaryPath(out);
    db = openCollection(temp, { create: true });
    // Nothing is gained by syncing a file that a failure deletes whole; it is synced once before the rename.
    skipSyncing(db);
    const indexes = new DeferredIndexes(db, ['urls', 'links', 'pages', 'revisits']);
    merged = new MergedCollection(db);
    copySettings(shards[0] as ShardReader, merged);
    const hostIds = mergeHosts(shards, merged);
    const urls = mergeUrls(shards, hostIds, merged);
    const pages = mergePages(shards, urls, merged);
    const versions = mergeVersions(shards, pages.seqs, merged);
    const revisits = mergeRevisits(shards, pages.seqs, merged);
    mergeSoft404Folders(shards, hostIds, merged);
    mergeLabels(shards, urls.urlIds, merged);
    mergeSubresources(shards, merged);
    mergeRuns(shards, merged);
    mergeCookies(shards, merged);
    merged.finish();
    indexes.rebuild();
    const summary: MergeSummary = {
      path: out,
      shards: shards.length,
      pages: pages.pages,
      urls: merged.count('urls'),
      links: merged.count('links'),
      hosts: merged.count('hosts'),
      runs: merged.count('runs'),
      labels: merged.count('labels'),
      stubsResolved: urls.marks.resolvedStubs(),
      conflicts: pages.conflicts,
      urlClashes: urls.clashes,
      unlinkedDuplicates: pages.unlinkedDuplicates + versions.unlinkedDuplicates,
      versions: versions.versions,
      revisits,
      soft404Folders: merged.count('soft404_folders'),
      seconds: 0,
    };
    checkpointAndTruncate(db);
    db.close();
    db = undefined;
    placeMerged(temp, out, force);
    temp = undefined;
    return { ...summary, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    try {
      merged?.abandon();
    } catch {
      // The file is deleted next: what its last batch held does not matter.
    }
    db?.close();
    if (temp !== undefined) removeCollectionFiles(temp);
    throw err;
  } finally {
    for (const shard of shards) shard.close();
  }
}
