/**
 * The cross-site half of the focus benchmark: six documentation sites seeded together, as a
 * user seeds a manual, a reference and a few more sites at once, and topics whose hot pages
 * lie on several of them in unequal shares. A page is named by its site and path
 * (`postgres:/wal-intro.html`), so the stored full crawl and a real crawl served on other
 * ports name it alike.
 *
 * Written down on 2026-11-26, before any cross-site ordering was measured. The only thing
 * looked at was how many pages each predicate selects over the six sites together (15-400
 * asked for); a topic that selected too many or too few was replaced, never reworded after
 * seeing results (x-sparse, 1,143 hot pages, became x-hashing). Topics alternate between the
 * tuning half and the check half.
 */
import type { TopicHalf } from './topics.ts';

/** The sites seeded together, by their keys in sites.ts. */
export const CROSS_SITES = ['python', 'git', 'django', 'scipy', 'postgres', 'sqlite'] as const;

export interface CrossTopic {
  key: string;
  query: string;
  predicate: string;
  half: TopicHalf;
}

type CrossRow = [key: string, query: string, predicate: string];

const ROWS: readonly CrossRow[] = [
  ['x-wal', 'write-ahead logging and checkpoints', 'title:wal|body>=5:wal'],
  ['x-json', 'reading and writing JSON data', 'title:json|body>=8:json'],
  ['x-timezones', 'dates, times and time zones', 'title:timezone|body>=6:timezone'],
  ['x-transactions', 'transactions and isolation levels', 'title:transaction|body>=8:transaction'],
  ['x-merge', 'merging branches and resolving conflicts', 'title:merge|body>=10:merge'],
  ['x-hashing', 'hash functions and hashing', 'title:hash|body>=8:hash'],
  ['x-unicode', 'unicode text and character encodings', 'title:unicode|body>=10:unicode'],
  ['x-sockets', 'sockets and network connections', 'title:socket|body>=8:socket'],
];

export const CROSS_TOPICS: readonly CrossTopic[] = ROWS.map(([key, query, predicate], i) => ({ key, query, predicate, half: i % 2 === 0 ? 'tuning' : 'check' }));

/** A URL as `site:path`; origins no site was served on keep their origin. */
export function sitePathOf(url: string, siteOfOrigin: ReadonlyMap<string, string>): string {
  const u = URL.parse(url);
  if (u === null) return url;
  return `${siteOfOrigin.get(u.origin) ?? u.origin}:${u.pathname}${u.search}`;
}

/** The site part of a `site:path` name. */
export function siteOfName(name: string): string {
  return name.slice(0, name.indexOf(':'));
}
