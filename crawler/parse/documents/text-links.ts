/*
 * A document's links as ExtractedLinks: the ones its format marks (a PDF's link annotations)
 * and the http(s) URLs written in its text, resolved against the document's URL, the first of
 * each target kept, at most maxLinks. Each has the words around it in the text as context,
 * as a web page's links do.
 */
import type { ExtractedLink } from '../extract-html.ts';

/** A link the document marks, where its anchor is in the text (undefined: no text under it). */
export interface MarkedLink {
  href: string;
  span: { start: number; end: number } | undefined;
  /** Where it comes in the document's order when it has no span (the start of its page). */
  at: number;
}

export interface DocumentLinks {
  links: ExtractedLink[];
  /** Distinct targets past maxLinks. */
  dropped: number;
}

/** As extract-html's links: enough words around a link to tell what it is about. */
const CONTEXT_WORDS = 10;
/** Characters looked at on each side for the context words: ten ordinary words fit many times over. */
const CONTEXT_WINDOW = 400;
/** A URL longer than this in a text is no URL a crawl should follow. */
const MAX_URL_CHARS = 2048;
/** http(s) URLs as written in running text; what may end one is decided by trimUrl. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`{}|\\^‘’“”«»]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'"]+$/;

/** The URLs written in `text`, each with its span. */
export function urlsInText(text: string): { href: string; span: { start: number; end: number } }[] {
  const found: { href: string; span: { start: number; end: number } }[] = [];
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const href = trimUrl(match[0]);
    if (href.length > MAX_URL_CHARS) continue;
    found.push({ href, span: { start: match.index, end: match.index + href.length } });
  }
  return found;
}

/** Drops what running text puts after a URL: a full stop, a comma, a closing bracket the URL did not open. */
function trimUrl(url: string): string {
  let trimmed = url.replace(TRAILING_PUNCTUATION, '');
  for (const [open, close] of [['(', ')'], ['[', ']']] as const) {
    while (trimmed.endsWith(close) && trimmed.split(close).length > trimmed.split(open).length) trimmed = trimmed.slice(0, -1).replace(TRAILING_PUNCTUATION, '');
  }
  return trimmed;
}

/** The http(s) URL `href` names from `base`, or undefined. */
function resolveHttp(href: string, base: string): string | undefined {
  const url = URL.parse(href, base);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined;
}

/** Whether a span overlaps any of `spans`: a binary search over them by start, with the furthest end up to each. */
function overlapTest(spans: readonly { start: number; end: number }[]): (span: { start: number; end: number }) => boolean {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const furthestEnd: number[] = [];
  for (const span of sorted) furthestEnd.push(Math.max(span.end, furthestEnd.at(-1) ?? 0));
  return (span) => {
    // The last of the sorted spans that starts before this one ends.
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((sorted[mid] as { start: number }).start < span.end) low = mid + 1;
      else high = mid;
    }
    return low > 0 && (furthestEnd[low - 1] as number) > span.start;
  };
}

/**
 * The document's links in the order they come in it: marked links, and the URLs written in the
 * text that no marked link already covers (a PDF's link over a printed URL is that URL).
 */
export function documentLinks(text: string, marked: readonly MarkedLink[], base: string, maxLinks: number): DocumentLinks {
  const coveredByMarked = overlapTest(marked.flatMap((link) => (link.span === undefined ? [] : [link.span])));
  const written = urlsInText(text).filter((url) => !coveredByMarked(url.span));
  const candidates = [...marked, ...written.map((url) => ({ ...url, at: url.span.start }))].sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const links: ExtractedLink[] = [];
  let dropped = 0;
  for (const candidate of candidates) {
    const href = resolveHttp(candidate.href, base);
    if (href === undefined || seen.has(href)) continue;
    seen.add(href);
    if (links.length >= maxLinks) {
      dropped++;
      continue;
    }
    const span = candidate.span;
    links.push({
      href,
      anchor: span === undefined ? '' : text.slice(span.start, span.end).replace(/\s+/g, ' ').trim(),
      contextBefore: span === undefined ? '' : wordsBefore(text, span.start),
      contextAfter: span === undefined ? '' : wordsAfter(text, span.end),
      nofollow: false,
      rel: '',
      tag: 'a',
    });
  }
  return { links, dropped };
}

/** The last CONTEXT_WORDS whole words before `end`. */
function wordsBefore(text: string, end: number): string {
  const from = Math.max(0, end - CONTEXT_WINDOW);
  const words = text.slice(from, end).split(/\s+/).filter((word) => word !== '');
  // The window may start inside a word: that word is not whole.
  if (from > 0 && !/\s/.test(text[from - 1] as string) && !/\s/.test(text[from] as string)) words.shift();
  return words.slice(-CONTEXT_WORDS).join(' ');
}

/** The first CONTEXT_WORDS whole words from `start`. */
function wordsAfter(text: string, start: number): string {
  const to = Math.min(text.length, start + CONTEXT_WINDOW);
  const words = text.slice(start, to).split(/\s+/).filter((word) => word !== '');
  if (to < text.length && !/\s/.test(text[to - 1] as string) && !/\s/.test(text[to] as string)) words.pop();
  return words.slice(0, CONTEXT_WORDS).join(' ');
}
