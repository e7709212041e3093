import { identifierWords } from './query-matcher.ts';
import type { DocumentType } from '../../parse/documents/document-facts.ts';

/*
 * Hubs: pages that list many others with their titles, such as tables of contents,
 * indexes, site maps and glossaries. They are rarely on topic themselves, but one of them
 * shows the anchors of a whole manual, which is how a focused crawl learns where the topic
 * lives (Sasazawa and Sogawa 2025 crawl such pages first). Told by the URL's file name or
 * the anchor text.
 */

const HUB_WORDS: ReadonlySet<string> = new Set(['index', 'contents', 'toc', 'sitemap', 'glossary', 'genindex', 'modindex', 'bookindex']);
/**
 * A file name that says "index" among many other words names something else
 * (git-update-index): a hub's file name is short (genindex-A, py-modindex, index.en).
 */
const MAX_FILE_WORDS = 2;
/**
 * Anchors that name a listing: an index, a table of contents, a site map, a glossary, a
 * "List of …", a site's "Documentation". In technical manuals "index" alone is also a
 * thing ("CREATE INDEX"), so an anchor is a hub's only when it is one of these phrases.
 */
const HUB_ANCHOR = /^(?:(?:general|module|python module|alphabetical|keyword|full|complete|subject|book|api|master) index|index|contents|(?:complete |full )?table of contents|site ?map|glossary|documentation|docs|list of .+)$/;

function fileWords(url: string): string[] {
  const path = URL.parse(url)?.pathname ?? '';
  const file = path.slice(path.lastIndexOf('/') + 1).replace(/\.[a-z0-9]+$/i, '');
  return file === '' ? ['index'] : identifierWords(file);
}

/** True when the URL's file name names a hub. */
export function hubUrl(url: string): boolean {
  const words = fileWords(url);
  return words.length <= MAX_FILE_WORDS && words.some((w) => HUB_WORDS.has(w));
}

/** True when an anchor names a listing. */
export function hubAnchor(anchor: string): boolean {
  return anchor !== '' && anchor.length < 40 && HUB_ANCHOR.test(anchor.trim().toLowerCase().replace(/\s+/g, ' '));
}

/** True when the URL's file name or an anchor pointing at it names a hub. */
export function looksLikeHub(url: string, anchor: string): boolean {
  return hubUrl(url) || hubAnchor(anchor);
}

const NOT_HTML = /\.(pdf|ps|gz|tgz|bz2|xz|zip|7z|tar|epub|mobi|txt|csv|json|xml|png|jpe?g|gif|svg|webp|ico|mp3|mp4|webm|ogg|wav|avi|mov|exe|dmg|deb|rpm|msi|iso|woff2?|ttf|css|js)$/i;

/** The extensions of the document types a crawl can read: such a link is a candidate like a page's when its type is read. */
const DOCUMENT_EXTENSION: Readonly<Record<DocumentType, RegExp>> = { pdf: /\.pdf$/i, text: /\.txt$/i };

/**
 * True when the URL's extension says it is not a web page (a PDF, an archive, an image…) nor
 * a document of a type the crawl reads (`documents`).
 */
export function looksLikeDownload(url: string, documents: readonly DocumentType[] = []): boolean {
  const path = URL.parse(url)?.pathname ?? '';
  return NOT_HTML.test(path) && !documents.some((type) => DOCUMENT_EXTENSION[type].test(path));
}
