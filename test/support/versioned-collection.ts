import { setTimeout as sleep } from 'node:timers/promises';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { RefreshPolicy } from '../../crawler/engine/run-policy.ts';
import { finishRefresh, startRefresh } from '../../crawler/engine/refresh-run.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import type { Db } from '../../crawler/store/database.ts';
import { startChangingSite, type ChangingSite } from './changing-site.ts';
import { crawlOnce, testSettings } from './crawl-harness.ts';

export const VERSIONED_QUERY = 'write-ahead logging checkpoints';
const LAST_MODIFIED = 'Tue, 01 Sep 2026 10:00:00 GMT';

export interface VersionedCollection {
  site: ChangingSite;
  db: Db;
  dbPath: string;
  settings: CrawlSettings;
  url(path: string): string;
}

/** Until the next whole second: archive indexes stamp captures to the second, so each run's captures get their own. */
async function nextSecond(): Promise<void> {
  await sleep(1000 - (Date.now() % 1000) + 20);
}

async function refresh(db: Db, settings: CrawlSettings): Promise<void> {
  await nextSecond();
  const run = startRefresh(db, {});
  const engine = new CrawlEngine(db, settings, { policy: new RefreshPolicy(run) });
  const outcome = await engine.run();
  finishRefresh(db, outcome);
  if (outcome !== 'exhausted') throw new Error(`the refresh ended ${outcome}, not exhausted`);
}

/**
 * A collection with a history, made as a user makes one: a crawl of a changing loopback
 * site, then two refreshes with the site changed before each.
 * - /etag (ETag): 304, then changed (2 versions);
 * - /dated (Last-Modified only): 304 twice;
 * - /plain (no validators): identical twice;
 * - /changes (ETag): changed (linking /new-page), then 304 for the new version;
 * - /goes-404: gone at the first refresh; /wiki/Write-ahead_log: a soft 404 (200) then;
 * - /, /wiki/Checkpoint, /wiki/Log_sequence_number: identical twice; /new-page: found by the first refresh.
 */
export async function buildVersionedCollection(dir: string): Promise<VersionedCollection> {
  const site = await startChangingSite();
  const url = (path: string): string => `${site.origin}${path}`;
  const links = ['/etag', '/dated', '/plain', '/changes', '/goes-404', '/wiki/Write-ahead_log', '/wiki/Checkpoint', '/wiki/Log_sequence_number'].map((path) => `<a href="${path}">${path}</a>`).join(' ');
  site.pages.set('/', { body: `<p>Index of write-ahead logging notes.</p>${links}` });
  site.pages.set('/etag', { body: '<p>Checkpoints flush dirty pages.</p>', etag: '"etag-1"' });
  site.pages.set('/dated', { body: '<p>Log sequence numbers order write-ahead records.</p>', lastModified: LAST_MODIFIED });
  site.pages.set('/plain', { body: '<p>No validators on this page about logging.</p>' });
  site.pages.set('/changes', { body: '<p>The old text about checkpoints and logs.</p>', etag: '"changes-1"' });
  site.pages.set('/goes-404', { body: '<p>Soon gone with a 404, about checkpoints.</p>', lastModified: LAST_MODIFIED });
  site.pages.set('/wiki/Write-ahead_log', { body: '<h1>Write-ahead log</h1><p>A write-ahead log records changes before they reach the data files, so recovery can replay them.</p>' });
  // Articles enough for the crawler to probe their folder, which answers 200 for any name.
  site.pages.set('/wiki/Checkpoint', { body: '<h1>Checkpoint</h1><p>A checkpoint writes every dirty page to the data files, bounding the log a recovery must replay.</p>' });
  site.pages.set('/wiki/Log_sequence_number', { body: '<h1>Log sequence number</h1><p>Each record of the write-ahead log has a log sequence number giving its place in the log.</p>' });
  site.softNotFoundFolders.add('/wiki/');
  const settings = testSettings([url('/')], { probeSoft404: true, query: VERSIONED_QUERY, allowPrivate: true });
  const crawl = await crawlOnce(dir, settings);
  if (crawl.outcome !== 'exhausted') throw new Error(`the crawl ended ${crawl.outcome}, not exhausted`);

  site.pages.set('/changes', { body: '<p>The new text about checkpoints, logs and <a href="/new-page">a new page</a>.</p>', etag: '"changes-2"' });
  site.pages.set('/new-page', { body: '<p>A page that did not exist at the first crawl, about checkpoints.</p>' });
  site.pages.set('/goes-404', { body: '', status: 404 });
  site.pages.delete('/wiki/Write-ahead_log');
  await refresh(crawl.db, settings);

  site.pages.set('/etag', { body: '<p>Checkpoints flush dirty pages, and now the log too.</p>', etag: '"etag-2"' });
  await refresh(crawl.db, settings);
  return { site, db: crawl.db, dbPath: crawl.dbPath, settings, url };
}
