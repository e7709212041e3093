import type { Acronym } from '../relevance/acronyms.ts';
import type { JudgedPage, PageJudge } from '../relevance/judge.ts';
import { termCounts } from '../relevance/text.ts';
import { LabRows } from '../library/lab-rows.ts';
import type { ReadonlyDb } from '../store/database.ts';
import type { LabGraph } from './graph.ts';

/** What the lab tells a strategy of a fetched page: the judge's verdict and the acronyms the page defined. */
export interface LabVerdict {
  relevance: number;
  hot: boolean;
  grade?: number;
  acronyms?: readonly Acronym[];
}

/** A stored page's words, as the judge reads them. */
type PageWords = Omit<JudgedPage, 'urlId' | 'site'>;

function originOf(url: string): string {
  return URL.parse(url)?.origin ?? '';
}

/**
 * The words of every stored page with text, by lab node, so that a replay can judge pages
 * afresh, in its own fetch order, as a crawl's judge would have: under another query, or
 * with idf and the hot rule's estimates growing along the replayed order.
 */
export class LabPageTexts {
  readonly #pages: (PageWords | undefined)[];

  private constructor(pages: (PageWords | undefined)[]) {
    this.#pages = pages;
  }

  static load(db: ReadonlyDb, graph: LabGraph): LabPageTexts {
    const nodeOf = new Map<number, number>();
    const sourceIds = graph.sourceIds;
    for (let v = 0; v < graph.nodeCount; v++) nodeOf.set(sourceIds === null ? v : (sourceIds[v] as number), v);
    const pages = new Array<PageWords | undefined>(graph.nodeCount);
    for (const row of new LabRows(db).pageTexts()) {
      const v = nodeOf.get(row.urlId);
      if (v !== undefined) pages[v] = { title: row.title, text: row.text, titleTerms: termCounts(row.title), bodyTerms: termCounts(row.text) };
    }
    return new LabPageTexts(pages);
  }

  /** The node's words, or undefined for a URL without a stored page with text. */
  of(node: number): PageWords | undefined {
    return this.#pages[node];
  }

  /**
   * Verdicts from a fresh judge, asked in the order the replay fetches pages (each page
   * once). A page without text gets what the crawl gives it: relevance 0, not hot.
   */
  liveVerdicts(judge: PageJudge, urls: readonly string[]): (node: number) => LabVerdict {
    return (node) => {
      const page = this.#pages[node];
      if (page === undefined) return { relevance: 0, hot: false, grade: 0 };
      const verdict = judge.judge({ urlId: node, site: originOf(urls[node] ?? ''), ...page });
      return { relevance: verdict.relevance ?? 0, hot: verdict.hot, grade: verdict.grade, ...(verdict.acronyms === undefined ? {} : { acronyms: verdict.acronyms }) };
    };
  }
}
