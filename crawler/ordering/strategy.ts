import type { Acronym } from '../relevance/acronyms.ts';
import type { UrlHint, UrlKind } from '../parse/url-kind.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';
import type { DocumentType } from '../parse/documents/document-facts.ts';

/**
 * The ordering core. A strategy sees a crawl as a stream of events, the same whether the
 * engine is crawling the web or the lab is replaying a stored crawl, and keeps one
 * priority per known URL: higher is fetched sooner; ties go to the URL discovered first.
 * Politeness stays with the caller: the engine asks for the best URL of a host that may
 * be fetched now; the lab (no hosts) asks for the best URL overall.
 *
 * Event order for each fetched page P: linked() for every link on P (targets already
 * known included, so backlink counts see them), then fetched(P). Seeds arrive as
 * linked() with srcId null before anything is fetched.
 *
 * A site resource (a sitemap, a site's search index) is fetched like a page: linked() for
 * every URL it lists (a search index's page titles as anchors), then hinted() for each
 * listed URL it says something about, then fetched(R) with relevance 0 and no terms.
 */

export interface LinkEvent {
  /** The fetched page the link is on; null for a seed. */
  srcId: number | null;
  /** The URL it points to. */
  dstId: number;
  /** True the first time this URL is seen: it has just entered the frontier (if in scope). */
  isNew: boolean;
  /** The canonical URL of dstId. */
  url: string;
  /** Link depth of dstId through this link (0 for seeds). */
  depth: number;
  anchor: string;
  /** About ten words either side of the anchor, joined with a space. */
  context: string;
  /** What dstId is, when it is a site resource; absent for an ordinary page. */
  kind?: UrlKind;
  /**
   * The grade of the page the link is on when that page is not this crawl's to tell (srcId
   * null): a cluster's other shard judged it. It counts as a fetched parent's grade.
   */
  sourceGrade?: number;
}

/** A link's context as strategies see it: the words before and after the anchor, joined by a space. */
export function linkContext(before: string, after: string): string {
  return before !== '' && after !== '' ? `${before} ${after}` : before || after;
}

/** What the caller learnt by fetching a page. */
export interface PageVerdict {
  id: number;
  /** IS'(P,Q) in [0, 1], possibly blended with the label classifier. */
  relevance: number;
  hot: boolean;
  /**
   * The judge's graded verdict in [0, 1]: 0.5 at the hot bar, towards 1 above it and 0
   * below it. Absent when only the binary verdict is known (a replayed history).
   */
  grade?: number;
  /** Distinct content terms of the page (stemmed, stop words removed, at most MAX_PAGE_TERMS). */
  terms: readonly string[];
  /** Ids of the URLs the page links to (as given in linked()). */
  outlinks: readonly number[];
  /** Acronyms of the query's phrases the judge first saw defined on this page: from now on they name those terms. */
  acronyms?: readonly Acronym[];
}

export interface OrderingStrategy {
  readonly name: string;
  /**
   * False for strategies whose order does not depend on what was fetched (bfs): the
   * engine then skips replaying a resumed collection's history into them.
   */
  readonly needsHistory?: boolean;
  linked(link: LinkEvent): void;
  /** Evidence from a site resource about a known, usually unfetched, URL. Optional: most strategies ignore it. */
  hinted?(hint: UrlHint): void;
  fetched(page: PageVerdict): void;
  /**
   * The user labelled a fetched page relevant (true) or not (false), or cleared its label
   * (null: the judge's verdict stands again). Optional: strategies that do not learn ignore it.
   */
  labelled?(id: number, relevant: boolean | null): void;
  /** The current priority of a known URL. */
  priority(id: number): number;
  /**
   * Ids of URLs whose priority changed since the last call (each at most once). The
   * caller re-queues those still waiting. Strategies must keep this proportional to the
   * evidence (children, siblings, a periodic re-score), never the whole frontier per page.
   */
  takeChanged(): number[];
  explain(id: number): PriorityExplanation;
}

/** What every strategy may know about the crawl it orders. */
export interface OrderingContext {
  /** The driving query as typed. */
  query: string;
  /** Seed for strategies that draw random numbers, so runs repeat. */
  randomSeed: number;
  /** The document types the crawl reads (settings.documents): links to them are scored as pages, not as downloads. */
  documents?: readonly DocumentType[];
}
