import { collectionStats, harvestSeries, storedRevisitCounts } from '../../library/stats.ts';
import { listPages, type PageListFilter } from '../../library/page-list.ts';
import { searchPages } from '../../library/search.ts';
import type { PageTypeFilter } from '../../protocol/api.ts';
import { UsageError } from '../../errors.ts';
import { DURATION_LIMITS, readDuration } from '../../protocol/settings.ts';
import { openCollection, type ReadonlyDb } from '../../store/database.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';
import { writeOut } from '../terminal-text.ts';

export const PAGES_USAGE = 'pages   --db FILE [--type html|pdf|text|document] [--changed-since WHEN] [--new-since WHEN] [--gone] [--json]';
export const SEARCH_USAGE = 'search  --db FILE [--all-versions] [--json] [--limit N] WORDS…';
/** What WHEN may be, for the usage text. */
export const WHEN_USAGE = `WHEN: an ISO date or time (2026-05-01, 2026-05-01T09:30Z; a date alone is midnight UTC,
                a time without a zone is local) or a duration ago (7d, 12h, 30m)`;

/** The most hits `search --limit` asks for: they are read into memory at once. */
const MAX_SEARCH_LIMIT = 10_000;

/** An ISO date, or a date and time with or without a zone: its calendar date is checked, the rest by Date.parse. */
const ISO_TIME = /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Why a date that has the ISO shape is not on the calendar (Date.parse would roll 2026-02-30 over to March), or undefined. */
function calendarProblem(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12) return 'a month is from 01 to 12';
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return `${MONTH_NAMES[month - 1]} ${year} has ${days} days`;
  return undefined;
}

/** An ISO date or time as epoch ms; a UsageError when it is not a real date and time. */
function isoTimeOption(name: string, text: string): number {
  const shape = ISO_TIME.exec(text);
  const refusal = `--${name} must be an ISO date or time (2026-05-01, 2026-05-01T09:30Z) or a duration such as 7d or 12h, got "${text}"`;
  if (shape?.groups === undefined) throw new UsageError(refusal, { option: name });
  const { year, month, day } = shape.groups;
  const problem = calendarProblem(Number(year), Number(month), Number(day));
  if (problem !== undefined) throw new UsageError(`--${name} must be an ISO date or time of a real day: ${year}-${month}-${day} is not one (${problem})`, { option: name });
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new UsageError(refusal, { option: name });
  return at;
}

/** A --…-since value as epoch ms: an ISO date or time, or a duration meaning that long before `now`. */
export function sinceOption(name: string, value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const ago = readDuration(text);
  if (ago.ok) return now - ago.ms;
  if (ago.why === 'out-of-range') throw new UsageError(`--${name} takes a duration ${DURATION_LIMITS}, got "${value}"`, { option: name });
  return isoTimeOption(name, text);
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
      writeOut(`${key.padEnd(18)} ${shown}\n`);
    }
  }
  return 0;
}

const PAGES_OPTIONS = {
  db: { type: 'string' },
  type: { type: 'string' },
  json: { type: 'boolean' },
  'changed-since': { type: 'string' },
  'new-since': { type: 'string' },
  gone: { type: 'boolean' },
} as const;

const PAGE_TYPES: readonly PageTypeFilter[] = ['html', 'pdf', 'text', 'document'];

function typeOption(value: string | undefined): PageTypeFilter | undefined {
  if (value === undefined) return undefined;
  const type = PAGE_TYPES.find((t) => t === value.trim().toLowerCase());
  if (type === undefined) throw new UsageError(`--type must be one of ${PAGE_TYPES.join(', ')} (document: pdf or text), got "${value}"`, { option: 'type' });
  return type;
}

/** A page's type as `pages` shows it: a document's with its page count (pdf:12), else html. */
function typeColumn(type: string, pageCount: number | null): string {
  return type === 'pdf' && pageCount !== null ? `pdf:${pageCount}` : type;
}

/** `forager pages`: one line per page (seq, status, type, versions, last change or gone, URL, title), those the filters keep. */
export function pagesCommand(argv: string[]): number {
  const { values } = parseCommandArgs('pages', argv, PAGES_OPTIONS);
  const now = Date.now();
  const changedSince = sinceOption('changed-since', values['changed-since'], now);
  const newSince = sinceOption('new-since', values['new-since'], now);
  const type = typeOption(values.type);
  const filter: PageListFilter = {
    ...(changedSince === undefined ? {} : { changedSince }),
    ...(newSince === undefined ? {} : { newSince }),
    ...(values.gone === true ? { gone: true } : {}),
    ...(type === undefined ? {} : { type }),
  };
  withCollection(requireOption('pages', 'db', values.db), (db) => {
    for (const page of listPages(db, filter)) {
      if (values.json) {
        process.stdout.write(`${JSON.stringify(page)}\n`);
        continue;
      }
      const change = page.goneAt !== null ? `gone ${page.goneAt}` : page.lastChangedAt !== null ? `changed ${page.lastChangedAt}` : '-';
      writeOut(`${page.seq}\t${page.status}\t${typeColumn(page.type, page.pageCount)}\tv${page.version}\t${change}\t${page.url}\t${page.title ?? ''}\n`);
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
  const limit = integerOption('limit', values.limit, { min: 1, max: MAX_SEARCH_LIMIT }) ?? 20;
  const allVersions = values['all-versions'] === true;
  const hits = withCollection(requireOption('search', 'db', values.db), (db) => searchPages(db, query, { limit, allVersions }));
  for (const hit of hits) {
    const fetchedAt = new Date(hit.fetchedAt).toISOString();
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ ...hit, fetchedAt, snippet: hit.snippet === '' ? null : hit.snippet })}\n`);
      continue;
    }
    const earlier = hit.latest ? '' : `   in version ${hit.version}, fetched ${fetchedAt} (the page has changed since)\n`;
    const page = hit.documentPage === null ? '' : `p. ${hit.documentPage}: `;
    const snippet = hit.snippet === '' ? '' : `   ${page}${hit.snippet}\n`;
    const kind = hit.documentType === null ? '' : ` (${hit.documentType === 'pdf' ? 'PDF' : 'plain text'})`;
    writeOut(`${hit.rank}. ${hit.title ?? hit.url}${kind}\n   ${hit.url}\n${earlier}${snippet}`);
  }
  if (!values.json && hits.length === 0) writeOut('no pages match\n');
  return 0;
}
