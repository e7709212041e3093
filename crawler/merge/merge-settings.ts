import { loadSettings } from '../store/settings-store.ts';
import type { MergedCollection } from './merged-collection.ts';
import { MergeError } from './merge-error.ts';
import type { ShardReader } from './shard-reader.ts';

/*
 * A cluster writes the crawl's settings once and every shard holds them: the merged
 * collection takes the first shard's. Shards of two different crawls in one directory
 * would merge into a collection no query describes, so the query and seeds must agree.
 */

const quote = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** Checks that every shard holds settings, with the first shard's query and seeds. */
export function checkSameCrawl(shards: readonly ShardReader[]): void {
  let first: { shard: ShardReader; query: string; seeds: string } | undefined;
  for (const shard of shards) {
    const settings = shard.read((db) => loadSettings(db));
    if (settings === undefined) {
      throw new MergeError('shards-disagree', `shard ${shard.file.name} holds no crawl settings: it is not a shard of a cluster's crawl`, { shard: shard.file.path });
    }
    // Seeds in any order are the same seeds.
    const seeds = JSON.stringify([...settings.seeds].sort());
    if (first === undefined) {
      first = { shard, query: settings.query, seeds };
      continue;
    }
    const pair = `${first.shard.file.name} and ${shard.file.name}`;
    if (settings.query !== first.query) {
      throw new MergeError('shards-disagree', `shards ${pair} are not one crawl: their queries differ (${quote(first.query)} and ${quote(settings.query)})`, {
        shards: [first.shard.file.path, shard.file.path],
      });
    }
    if (seeds !== first.seeds) {
      throw new MergeError('shards-disagree', `shards ${pair} are not one crawl: their seeds differ`, { shards: [first.shard.file.path, shard.file.path] });
    }
  }
}

/** The first shard's settings rows, as they are stored (the crawl's settings and anything kept beside them). */
export function copySettings(first: ShardReader, out: MergedCollection): void {
  for (const row of first.query<{ key: string; value: string }>('SELECT key, value FROM settings ORDER BY key').iterate()) out.setting(row.key, row.value);
}
