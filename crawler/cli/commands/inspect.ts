import { collectionStats, harvestSeries, storedRevisitCounts } from '../../library/stats.ts';
import { listPages } from '../../library/page-list.ts';
import { searchPages } from '../../library/search.ts';
import type { VersionFilter } from '../../library/version-columns.ts';
import { UsageError } from '../../errors.ts';
import { durationMs } from '../../protocol/settings.ts';
import { openCollection, type ReadonlyDb } from '../../store/database.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';

export const PAGES_USAGE = 'pages   --db FILE [--changed-since WHEN] [--new-since WHEN] [--gone] [--json]';
export const SEARCH_USAGE = 'search  --db FILE [--all-versions] [--json] [--limit N] WORDS…';
/** What WHEN may be, for the usage text. */
export const WHEN_USAGE = `WHEN: an ISO date or time (2026-05-01, 2026-05-01T09:30Z; a date alone is midnight UTC,
                a time without a zone is local) or a duration ago (7d, 12h, 30m)`;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A --…-since value as epoch ms: an ISO date or time, or a duration meaning that long before `now`. */
export function sinceOption(name: string, value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const ago = durationMs(text);
  if (ago !== undefined) return now - ago;
  const at = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`--${name} must be an ISO date or time (2026-05-01, 2026-05-01T09:30Z) or a duration such as 7d or 12h, got "${value}"`, { option: name });
  return at;
}

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
  const { stats, series } = withCollection(requireOption('stats', 'db', values.db), (db) => {
    const revisits = storedRevisitCounts(db);
    // Every refresh's revisits together: `revisits` is a run's in a crawl's own report.
    return { stats: { ...collectionStats(db), ...(revisits === undefined ? {} : { allRevisits: revisits }) }, series: harvestSeries(db) };
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...stats, harvestSeries: series })}\n`);
  } else {
    for (const [key, value] of Object.entries(stats)) {
      const shown = typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(3) : typeof value === 'object' ? Object.entries(value).map(([k, v]) => `${k} ${v}`).join(', ') : value;
      process.stdout.write(`${key.padEnd(18)} ${shown}\n`);
    }
  }
  return 0;
}

const PAGES_OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  'changed-since': { type: 'string' },
  'new-since': { type: 'string' },
  gone: { type: 'boolean' },
} as const;

/** `forager pages`: one line per page (seq, status, versions, last change or gone, URL, title), those the filters keep. */
export function pagesCommand(argv: string[]): number {
  const { values } = parseCommandArgs('pages', argv, PAGES_OPTIONS);
  const now = Date.now();
  const changedSince = sinceOption('changed-since', values['changed-since'], now);
  const newSince = sinceOption('new-since', values['new-since'], now);
  const filter: VersionFilter = {
    ...(changedSince === undefined ? {} : { changedSince }),
    ...(newSince === undefined ? {} : { newSince }),
    ...(values.gone === true ? { gone: true } : {}),
  };
  withCollection(requireOption('pages', 'db', values.db), (db) => {
    for (const page of listPages(db, filter)) {
      if (values.json) {
        process.stdout.write(`${JSON.stringify(page)}\n`);
        continue;
      }
      const change = page.goneAt !== null ? `gone ${page.goneAt}` : page.lastChangedAt !== null ? `changed ${page.lastChangedAt}` : '-';
      process.stdout.write(`${page.seq}\t${page.status}\tv${page.version}\t${change}\t${page.url}\t${page.title ?? ''}\n`);
    }
  });
  return 0;
}

export function searchCommand(argv: string[]): number {
  const { values, positionals } = parseCommandArgs(
    'search',
    argv,
    { db: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' }, 'all-versions': { type: 'boolean' } },
    true,
  );
  const query = positionals.join(' ').trim();
  if (query === '') throw new UsageError('search: give the words to search for', { command: 'search' });
  const limit = integerOption('limit', values.limit) ?? 20;
  const allVersions = values['all-versions'] === true;
  const hits = withCollection(requireOption('search', 'db', values.db), (db) => searchPages(db, query, { limit, allVersions }));
  for (const hit of hits) {
    const fetchedAt = new Date(hit.fetchedAt).toISOString();
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ ...hit, fetchedAt })}\n`);
      continue;
    }
    const earlier = hit.latest ? '' : `   in version ${hit.version}, fetched ${fetchedAt} (the page has changed since)\n`;
    process.stdout.write(`${hit.rank}. ${hit.title ?? hit.url}\n   ${hit.url}\n${earlier}   ${hit.snippet}\n`);
  }
  if (!values.json && hits.length === 0) process.stdout.write('no pages match\n');
  return 0;
}
