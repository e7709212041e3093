import type { UrlKind } from '../parse/url-kind.ts';

/**
 * How a URL's kind is stored: urls.kind holds a small integer (0 page, 1 sitemap, 2 search
 * index) rather than text, so that the column costs one byte a row.
 */
const KIND_CODES: Readonly<Record<UrlKind, number>> = { page: 0, sitemap: 1, 'search-index': 2 };
const KINDS: readonly UrlKind[] = ['page', 'sitemap', 'search-index'];

export function urlKindCode(kind: UrlKind): number {
  return KIND_CODES[kind];
}

/** The kind a stored code stands for; a code this version does not know reads as an ordinary page. */
export function urlKindOf(code: number): UrlKind {
  return KINDS[code] ?? 'page';
}
