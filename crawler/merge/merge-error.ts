import { ForagerError } from '../errors.ts';
import type { ErrorCode } from '../protocol/error-codes.ts';

/** What went wrong, for programs and tests; the message says it in words. */
export type MergeProblem =
  /** The data directory is missing or is not a directory. */
  | 'no-dir'
  /** The data directory holds no shard-NNN.forager file. */
  | 'no-shards'
  /** A shard cannot be opened or read: damaged, not Forager's, of another schema. The message names it. */
  | 'damaged-shard'
  /** The shards are not one crawl: they disagree on the query or the seeds, or one has no settings. */
  | 'shards-disagree'
  /** The output collection exists and --force was not given (or it is one of the shards). */
  | 'out-exists'
  /** The output collection cannot be created where asked. */
  | 'out-unwritable';

/** The codes of the contract each problem is reported with: no new code is needed for a merge. */
const CODES: Record<MergeProblem, ErrorCode> = {
  'no-dir': 'NOT_FOUND',
  'no-shards': 'NOT_FOUND',
  'damaged-shard': 'COLLECTION',
  'shards-disagree': 'COLLECTION',
  'out-exists': 'USAGE',
  'out-unwritable': 'COLLECTION',
};

/** A merge of a cluster's shards that could not be made; nothing is left at the output path. */
export class MergeError extends ForagerError {
  readonly problem: MergeProblem;

  constructor(problem: MergeProblem, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(CODES[problem], message, { ...context, problem }, options);
    this.problem = problem;
  }
}
