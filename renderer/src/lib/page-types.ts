/*
 * A stored page's type as the library shows and filters it: a web page, a PDF or a
 * plain-text document (the documents the crawl read, see --documents).
 */
import type { PageRow, PageType, PageTypeFilter } from '../../../crawler/protocol/api.ts';
import { formatBytes, formatCount } from './format.ts';

/** The library's type filter: 'all' asks for no filter. */
export type TypeChoice = 'all' | PageTypeFilter;

export const TYPE_CHOICES: readonly { value: TypeChoice; label: string }[] = [
  { value: 'all', label: 'All types' },
  { value: 'html', label: 'Web pages' },
  { value: 'document', label: 'Documents' },
  { value: 'pdf', label: 'PDF' },
  { value: 'text', label: 'Plain text' },
];

/** The listPages condition for a choice. */
export function typeQuery(choice: TypeChoice): { type?: PageTypeFilter } {
  return choice === 'all' ? {} : { type: choice };
}

/** Whether a search hit of `type` passes the choice (search has no type filter of its own). */
export function typeMatches(choice: TypeChoice, type: PageType): boolean {
  if (choice === 'all') return true;
  if (choice === 'document') return type !== 'html';
  return choice === type;
}

const TYPE_NAMES: Record<PageType, string> = { html: 'web page', pdf: 'PDF', text: 'plain text' };

export function typeName(type: PageType): string {
  return TYPE_NAMES[type];
}

/** A document's type, pages and size in a few words ("PDF · 52 pages · 1.2 MB"); null for a web page. */
export function documentSummary(row: Pick<PageRow, 'type' | 'pageCount' | 'bodyBytes'>): string | null {
  if (row.type === 'html') return null;
  const parts = [TYPE_NAMES[row.type]];
  if (row.type === 'pdf' && row.pageCount !== null) parts.push(row.pageCount === 1 ? '1 page' : `${formatCount(row.pageCount)} pages`);
  parts.push(formatBytes(row.bodyBytes));
  return parts.join(' · ');
}

/** What an empty list under the type filter means, in words. */
export function describeNoType(choice: TypeChoice): string {
  switch (choice) {
    case 'all':
      return 'No pages match.';
    case 'html':
      return 'No web page matches.';
    case 'document':
      return 'No document matches: the crawl stored no PDF or plain-text file here, or read none (see the Documents setting).';
    case 'pdf':
      return 'No PDF matches.';
    case 'text':
      return 'No plain-text document matches.';
  }
}
