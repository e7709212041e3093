/** What an ordering strategy knows about a URL when it is discovered. */
export interface CandidateUrl {
  url: string;
  depth: number;
  parentId: number | null;
  anchor: string;
}

/**
 * Ordering is pluggable: a strategy gives each newly queued URL a priority (higher is
 * fetched sooner; ties go to the URL discovered first). Politeness still decides when a
 * host may be asked; the strategy decides which of its URLs, and which ready host, goes first.
 */
export interface OrderingStrategy {
  readonly name: string;
  priority(candidate: CandidateUrl): number;
}
