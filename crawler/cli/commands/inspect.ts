import { collectionStats, harvestSeries } from '../../library/stats.ts';
import { listPages } from '../../library/page-list.ts';
import { searchPages } from '../../library/search.ts';
import { UsageError } from '../../errors.ts';
import { openCollection, type ReadonlyDb } from '../../store/database.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';

function withCollection<T>(path: string, use: (db: ReadonlyDb) => T): T {
  const db = openCollection(path, { create: false, readonly: true });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

export function statsCommand(argv: string[]): number {
  const { values } = parseCommandArgs('stats', argv, { db: { type: 'string' }, json: { type: 'boolean' } });
  const { stats, series } = withCollection(requireOption('stats', 'db', values.db), (db) => ({ stats: collectionStats(db), series: harvestSeries(db) }));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...stats, harvestSeries: series })}\n`);
  } else {
    for (const [key, value] of Object.entries(stats)) {
      process.stdout.write(`${key.padEnd(18)} ${typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(3) : value}\n`);
    }
  }
  return 0;
}

export function pagesCommand(argv: string[]): number {
  const { values } = parseCommandArgs('pages', argv, { db: { type: 'string' }, json: { type: 'boolean' } });
  withCollection(requireOption('pages', 'db', values.db), (db) => {
    for (const page of listPages(db)) {
      process.stdout.write(values.json ? `${JSON.stringify(page)}\n` : `${page.seq}\t${page.status}\t${page.url}\t${page.title ?? ''}\n`);
    }
  });
  return 0;
}

export function searchCommand(argv: string[]): number {
  const { values, positionals } = parseCommandArgs(
    'search',
    argv,
    { db: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' } },
    true,
  );
  const query = positionals.join(' ').trim();
  if (query === '') throw new UsageError('search: give the words to search for', { command: 'search' });
  const limit = integerOption('limit', values.limit) ?? 20;
  const hits = withCollection(requireOption('search', 'db', values.db), (db) => searchPages(db, query, { limit }));
  for (const hit of hits) {
    process.stdout.write(values.json ? `${JSON.stringify(hit)}\n` : `${hit.rank}. ${hit.title ?? hit.url}\n   ${hit.url}\n   ${hit.snippet}\n`);
  }
  if (!values.json && hits.length === 0) process.stdout.write('no pages match\n');
  return 0;
}
