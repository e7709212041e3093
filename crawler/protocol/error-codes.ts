/*
 * Every error code Forager gives, in one place: a ForagerError's `code` (crawler/errors.ts)
 * and an API reply's error code are one of these, for programs and tests to tell errors
 * apart without reading their words.
 */
export const ERROR_CODES = [
  /** Wrong arguments or settings from the user. */
  'USAGE',
  /** A URL that cannot be parsed or crawled. */
  'INVALID_URL',
  /** A collection file that is missing, unreadable, corrupt or not Forager's. */
  'COLLECTION',
  /** A fetch without a usable response. */
  'FETCH',
  'IMPORT',
  'EXPORT',
  /** A page or resource the parse worker could not analyse, took too long over, or the parse pool is closed. */
  'PARSE_FAILED',
  'PARSE_TIMEOUT',
  'PARSE_POOL_CLOSED',
  /** The collection could not be written or read: the disk is full, the file read-only, locked or damaged. */
  'STORE',
  /** Another process is writing the collection. */
  'LOCKED',
  /** A write asked of what is only read (a crawl cluster's shards served with `serve --shards`). */
  'READ_ONLY',
  /** The browser that renders pages could not be started, or a render was cancelled. */
  'BROWSER',
  /** A URL id an ordering strategy cannot hold; a lab graph that does not add up. */
  'ORDERING_ID',
  'LAB_GRAPH',
  /** A thing asked for by name that is not there (a collection, a page, an export). */
  'NOT_FOUND',
  /** API transport refusals: a malformed request, no such method, bad input, a caller not allowed, the crawler process gone. */
  'BAD_REQUEST',
  'UNKNOWN_METHOD',
  'INVALID_INPUT',
  'FORBIDDEN',
  'UNAVAILABLE',
  /** A fault inside Forager, not the caller's. */
  'INTERNAL',
  /** The UI's client: the service cannot be reached, the browser session ended, or a reply it cannot read. */
  'UNREACHABLE',
  'SESSION',
  'BAD_REPLY',
  /** A crawl cluster that cannot be reached (its Redis), does not exist, exists already, or refuses an operation. */
  'CLUSTER',
  /** A benchmark that could not be set up or whose child failed. */
  'BENCH_SETUP',
  'BENCH_CHILD',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
