import type { ExportPage } from '../library/export-selection.ts';
import { pageType, versionFacts, type PageFacts } from '../library/page-facts.ts';

/** One JSON object per line and page, for notebooks and pipelines; a document's text is the text read from it. */
export function jsonlLine(page: ExportPage, facts: PageFacts, query: string): string {
  const record = {
    url: facts.requestedUrl(page),
    finalUrl: page.url,
    title: page.title,
    text: page.text,
    relevance: page.relevance,
    hot: page.hot,
    labels: page.label === null ? [] : [page.label],
    query,
    fetchedAt: new Date(page.fetchedAt).toISOString(),
    depth: page.depth,
    status: page.status,
    contentType: page.contentType,
    type: pageType(page),
    pageCount: page.pageCount,
    outlinks: facts.outlinks(page.seq),
    ...versionFacts(page),
  };
  return `${JSON.stringify(record)}\n`;
}
