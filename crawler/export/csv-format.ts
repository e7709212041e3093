import type { ExportPage } from '../library/export-selection.ts';
import { pageType, versionFacts } from '../library/page-facts.ts';

export const CSV_HEADER = 'url,title,relevance,hot,depth,fetchedAt,versions,lastChangedAt,gone,type,pageCount\r\n';

/**
 * RFC 4180 quoting. A title that a spreadsheet would run as a formula (=, +, -, @ first)
 * gets a leading apostrophe: the file is opened by people, and page titles are untrusted.
 */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(page: ExportPage): string {
  const relevance = page.relevance === null ? '' : page.relevance.toFixed(4);
  const history = versionFacts(page);
  return (
    `${cell(page.url)},${cell(page.title ?? '')},${relevance},${page.hot ? 1 : 0},${page.depth},${new Date(page.fetchedAt).toISOString()},` +
    `${history.versions},${history.lastChangedAt ?? ''},${history.gone ?? ''},${cell(pageType(page))},${page.pageCount ?? ''}\r\n`
  );
}
