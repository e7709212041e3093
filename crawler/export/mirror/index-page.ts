/**
 * The mirror's index.html: the collection's query as the heading, when and how the mirror
 * was made, and one entry per page or document (title linking to its file, URL, a
 * document's type and pages, relevance, hot badge, snippet) in the order given. Written as a
 * stream of chunks: the rows come from a generator, so a large mirror's index is never held
 * in memory whole.
 */
import { escapeAttribute, escapeText } from '../../viewer/html-escape.ts';
import { relativeHref, type MirrorFileKind } from './names.ts';
import { formatUtc, MIRROR_HEAD_META } from './page.ts';
import type { ExportFilter } from '../../protocol/api.ts';

export interface MirrorIndexRow {
  /** The page's mirror path (the index is at the mirror's root). */
  path: string;
  url: string;
  title: string | null;
  relevance: number | null;
  hot: boolean;
  /** The start of the page's stored text. */
  text: string | null;
  kind: MirrorFileKind;
  /** A document's pages, when it was read. */
  pageCount: number | null;
}

export interface MirrorIndexHead {
  query: string;
  /** Web pages in the mirror, and documents beside them. */
  pages: number;
  documents: number;
  exportedAt: number;
  filter: ExportFilter;
}

const SNIPPET_CHARS = 200;
const ROWS_PER_CHUNK = 100;

/** About SNIPPET_CHARS of text, whitespace collapsed, cut at a word boundary. */
export function snippet(text: string | null): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const cut = flat.slice(0, SNIPPET_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > SNIPPET_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** The selection in words, e.g. "hot pages only; relevance at least 0.3". */
export function describeFilter(filter: ExportFilter): string {
  const parts: string[] = [];
  if (filter.hotOnly === true) parts.push('hot pages only');
  if (filter.minRelevance !== undefined) parts.push(`relevance at least ${filter.minRelevance}`);
  if (filter.labelledRelevant === true) parts.push('pages labelled relevant');
  if (filter.text !== undefined && filter.text.trim() !== '') parts.push(`text matching “${filter.text.trim()}”`);
  if (filter.host !== undefined && filter.host.trim() !== '') parts.push(`host ${filter.host.trim().toLowerCase()}`);
  return parts.length === 0 ? 'every stored page' : parts.join('; ');
}

const STYLE = `
body { margin: 0; background: #f6f7f9; color: #222; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; }
.about { color: #555; margin: 0 0 1.5rem; }
ol { list-style: none; padding: 0; margin: 0; }
li { background: #fff; border: 1px solid #e2e4e8; border-radius: 6px; padding: .7rem 1rem; margin: 0 0 .6rem; }
.title { font-size: 1.05rem; font-weight: 600; color: #1a5bb8; }
.url { color: #19703a; font-size: .85rem; word-break: break-all; }
.facts { color: #666; font-size: .85rem; }
.hot { display: inline-block; margin-left: .4rem; padding: 0 .45rem; border-radius: 9px; background: #d9480f; color: #fff; font-size: .75rem; font-weight: 600; vertical-align: middle; }
.snippet { margin: .3rem 0 0; color: #333; }
`;

const KIND_NAMES: Record<Exclude<MirrorFileKind, 'html'>, string> = { pdf: 'PDF', text: 'Plain text' };

function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "PDF, 12 pages · " for a document; nothing for a web page. */
function documentFacts(entry: MirrorIndexRow): string {
  if (entry.kind === 'html') return '';
  const pages = entry.pageCount === null ? '' : `, ${counted(entry.pageCount, 'page', 'pages')}`;
  return `<span class="kind">${KIND_NAMES[entry.kind]}${pages}</span> · `;
}

function row(entry: MirrorIndexRow): string {
  const title = entry.title !== null && entry.title.trim() !== '' ? entry.title.trim() : entry.url;
  const relevance = entry.relevance === null ? 'not judged' : entry.relevance.toFixed(3);
  const hot = entry.hot ? '<span class="hot">hot</span>' : '';
  const text = snippet(entry.text);
  return `<li><a class="title" href="${escapeAttribute(relativeHref('index.html', entry.path))}">${escapeText(title)}</a>${hot}\n` +
    `<div class="url">${escapeText(entry.url)}</div>\n` +
    `<div class="facts">${documentFacts(entry)}relevance <span class="relevance">${relevance}</span></div>\n` +
    (text === '' ? '' : `<p class="snippet">${escapeText(text)}</p>\n`) +
    '</li>\n';
}

export function* mirrorIndexHtml(head: MirrorIndexHead, rows: Iterable<MirrorIndexRow>): Generator<string> {
  const heading = head.query.trim() === '' ? 'Forager mirror' : head.query.trim();
  yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' + MIRROR_HEAD_META +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    `<title>${escapeText(heading)} · Forager mirror</title>\n<style>${STYLE}</style>\n</head>\n<body>\n<main>\n` +
    `<h1>${escapeText(heading)}</h1>\n` +
    `<p class="about">${counted(head.pages, 'page', 'pages')}${head.documents === 0 ? '' : ` and ${counted(head.documents, 'document', 'documents')}`} saved by Forager on ${formatUtc(head.exportedAt)}, ` +
    `by relevance. Selection: ${escapeText(describeFilter(head.filter))}.</p>\n<ol class="pages">\n`;
  let chunk = '';
  let count = 0;
  for (const entry of rows) {
    chunk += row(entry);
    if (++count % ROWS_PER_CHUNK === 0) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}</ol>\n</main>\n</body>\n</html>\n`;
}
