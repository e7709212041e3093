import type { ErrorCode } from './protocol/error-codes.ts';

/**
 * Typed errors. Every error Forager raises on purpose is a ForagerError with a
 * stable `code` (for programs and tests) and a `context` object (for humans and logs).
 */
export class ForagerError extends Error {
  readonly code: ErrorCode;
  readonly context: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.context = context;
  }
}

/** A URL that cannot be parsed, has a scheme we do not crawl, or is absurd. */
export class InvalidUrlError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('INVALID_URL', message, context);
  }
}

/** Wrong command-line arguments or settings supplied by the user. */
export class UsageError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('USAGE', message, context);
  }
}

/** A database file that is missing, unreadable, corrupt or not a Forager collection. */
export class CollectionError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('COLLECTION', message, context, options);
  }
}

/**
 * A fetch that did not produce a usable response. `reason` is a short machine code
 * (see FetchFailureReason) that the engine records as the URL's failure reason.
 */
export class FetchError extends ForagerError {
  readonly reason: string;
  readonly retryable: boolean;

  constructor(reason: string, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown; retryable?: boolean }) {
    super('FETCH', message, context, options);
    this.reason = reason;
    this.retryable = options?.retryable ?? false;
  }
}

/**
 * The collection could not be written or read (the disk is full, the file read-only, locked
 * by another connection past the busy time-out, damaged). A crawl pauses on one rather than
 * fail URLs; `sqliteCode` is SQLite's own code.
 */
export class StoreError extends ForagerError {
  readonly sqliteCode: string;

  constructor(sqliteCode: string, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('STORE', message, { ...context, sqliteCode }, options);
    this.sqliteCode = sqliteCode;
  }
}

/** Another process is writing the collection; the message names it. */
export class CollectionLockedError extends ForagerError {
  constructor(message: string, context: Record<string, unknown>) {
    super('LOCKED', message, context);
  }
}

/** A write (a crawl, a label, a deletion) asked of collections served read-only; the message says what to do instead. */
export class ReadOnlyError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('READ_ONLY', message, context);
  }
}

/** The browser that renders pages could not be started; the crawl goes on with pages as their HTML gives them. */
export class BrowserUnavailableError extends ForagerError {
  constructor(message: string, context: Record<string, unknown>, options?: { cause?: unknown }) {
    super('BROWSER', message, context, options);
  }
}

/** A render cancelled before it ended: its crawl (a cluster's shard) closed, or no longer wants the page. */
export class RenderCancelledError extends ForagerError {
  constructor(url: string) {
    super('BROWSER', `the render of ${url} was cancelled`, { url });
  }
}

/** A crawl cluster's coordination failed: its Redis cannot be reached, the cluster does not exist or exists already, or a shard's lease was lost. */
export class ClusterError extends ForagerError {
  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('CLUSTER', message, context, options);
  }
}
