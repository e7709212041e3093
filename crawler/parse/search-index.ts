/**
 * The search index a documentation generator ships with a site lists every page with its
 * title and the words in it: evidence about pages before they are fetched.
 *
 * - Sphinx's searchindex.js is `Search.setIndex({...})` around JSON: `docnames` and
 *   `titles` (one per document, same order), and `terms` and `titleterms`, each a map from
 *   a Sphinx-stemmed word to a document index or an array of them. The page of document i
 *   is docnames[i] + '.html' beside searchindex.js: only the html builder's layout is
 *   supported (the dirhtml builder's URLs cannot be told from the index alone). Older
 *   releases' JavaScript-literal format (unquoted keys) is not JSON and is refused.
 * - MkDocs' search/search_index.json is `{"docs": [{"location", "title", "text"}...]}`,
 *   locations relative to the site root (the folder above search/), one entry per page and
 *   one per section (`page/#section`).
 *
 * Terms become our own stems (text.ts), so they compare with the query's.
 */
import { contentTerms, termCounts, termsOfWords } from '../relevance/text.ts';
import { collapseWhitespace } from './html-whitespace.ts';
import { joinNotes, MAX_RESOURCE_ENTRIES, type ResourceContents, type ResourceEntry } from './resource-entries.ts';

/** Terms kept per page: a long page's rarest (Sphinx) or most frequent (MkDocs) ones. */
export const MAX_TERMS_PER_DOC = 2000;
/** Text of one MkDocs page read for terms. */
const MAX_DOC_TEXT_CHARS = 200 * 1024;
const MAX_TITLE_CHARS = 1000;
const SPHINX_PREFIX = 'Search.setIndex(';
const TAG = /<[^<>]{0,1000}>/g;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(note: string): ResourceContents {
  return { note, entries: [] };
}

/** The pages a search index lists, by its format (Sphinx or MkDocs). Never throws. */
export function readSearchIndex(text: string, indexUrl: string): ResourceContents {
  const body = text.trimStart();
  if (body.startsWith(SPHINX_PREFIX)) {
    const close = body.lastIndexOf(')');
    const data = parseJson(close > SPHINX_PREFIX.length ? body.slice(SPHINX_PREFIX.length, close) : '');
    return data === undefined ? refuse('search-index:not-json') : readSphinx(data, indexUrl);
  }
  if (body.startsWith('{')) {
    const data = parseJson(body);
    return data === undefined ? refuse('search-index:not-json') : readMkDocs(data, indexUrl);
  }
  return refuse('search-index:unknown-format');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A page URL from a path relative to root; './' keeps a hostile '//host' or 'scheme:' path inside the site. */
function pageUrl(path: string, root: string): string | undefined {
  return URL.parse(`./${path}`, root)?.href;
}

function title(value: unknown): string {
  return typeof value === 'string' ? collapseWhitespace(value).slice(0, MAX_TITLE_CHARS) : '';
}

/** Keeps the first MAX_RESOURCE_ENTRIES entries and says how many were dropped. */
function capped(entries: ResourceEntry[], note: string | null): ResourceContents {
  const dropped = entries.length - MAX_RESOURCE_ENTRIES;
  if (dropped <= 0) return { note, entries };
  return { note: joinNotes(note, `entries-dropped:${dropped}`), entries: entries.slice(0, MAX_RESOURCE_ENTRIES) };
}

function readSphinx(data: unknown, indexUrl: string): ResourceContents {
  if (!isRecord(data) || !Array.isArray(data.docnames)) return refuse('search-index:bad-shape');
  const docnames = data.docnames as unknown[];
  const titles = Array.isArray(data.titles) ? (data.titles as unknown[]) : [];
  const terms = termsByDoc(data.terms, docnames.length);
  const titleTerms = termsByDoc(data.titleterms, docnames.length);
  const entries: ResourceEntry[] = [];
  let unusable = 0;
  for (let i = 0; i < docnames.length; i++) {
    const name = docnames[i];
    const href = typeof name === 'string' && name !== '' ? pageUrl(`${name}.html`, indexUrl) : undefined;
    if (href === undefined) {
      unusable++;
      continue;
    }
    entries.push({ href, anchor: title(titles[i]), hint: { source: 'search-index', terms: terms[i] as string[], titleTerms: titleTerms[i] as string[] } });
  }
  return capped(entries, unusable > 0 ? `search-index:bad-docs:${unusable}` : null);
}

/**
 * Sphinx's postings (word → a document index or an array of them) turned around: each
 * document's distinct stems. Past MAX_TERMS_PER_DOC a document keeps its rarest ones,
 * which say most about it. Anything that is not a posting is skipped.
 */
function termsByDoc(postings: unknown, docCount: number): string[][] {
  const byDoc: { stem: string; docs: number }[][] = Array.from({ length: docCount }, () => []);
  if (isRecord(postings)) {
    for (const [word, where] of Object.entries(postings)) {
      const docs = typeof where === 'number' ? [where] : Array.isArray(where) ? (where as unknown[]) : [];
      if (docs.length === 0) continue;
      const stem = termsOfWords([word])[0];
      if (stem === undefined) continue;
      for (const doc of docs) {
        if (typeof doc === 'number' && Number.isInteger(doc) && doc >= 0 && doc < docCount) byDoc[doc]?.push({ stem, docs: docs.length });
      }
    }
  }
  return byDoc.map((list) => {
    if (list.length > MAX_TERMS_PER_DOC) list.sort((a, b) => a.docs - b.docs || (a.stem < b.stem ? -1 : a.stem > b.stem ? 1 : 0));
    const stems = new Set<string>();
    for (const { stem } of list) {
      if (stems.size === MAX_TERMS_PER_DOC) break;
      stems.add(stem);
    }
    return [...stems];
  });
}

interface MkDocsPage {
  title: string;
  /** The page entry's text (the whole page), when the index has one. */
  text: string | undefined;
  /** Section titles and texts, for an index that lists sections only. */
  sections: string[];
  sectionChars: number;
}

function readMkDocs(data: unknown, indexUrl: string): ResourceContents {
  if (!isRecord(data) || !Array.isArray(data.docs)) return refuse('search-index:bad-shape');
  // Pages are grouped by location without the #section, in index order.
  const pages = new Map<string, MkDocsPage>();
  let unusable = 0;
  for (const doc of data.docs as unknown[]) {
    if (!isRecord(doc) || typeof doc.location !== 'string') {
      unusable++;
      continue;
    }
    const hash = doc.location.indexOf('#');
    const location = hash === -1 ? doc.location : doc.location.slice(0, hash);
    let page = pages.get(location);
    if (page === undefined) {
      page = { title: '', text: undefined, sections: [], sectionChars: 0 };
      pages.set(location, page);
    }
    const docTitle = title(doc.title);
    const docText = typeof doc.text === 'string' ? doc.text.slice(0, MAX_DOC_TEXT_CHARS) : '';
    if (hash === -1) {
      page.title = docTitle;
      page.text = docText;
    } else if (page.sectionChars < MAX_DOC_TEXT_CHARS) {
      if (page.text === undefined && page.sections.length === 0) page.title = docTitle;
      page.sections.push(docTitle, docText);
      page.sectionChars += docTitle.length + docText.length;
    }
  }
  // The site root is the folder above search/.
  const root = URL.parse('../', indexUrl)?.href;
  const entries: ResourceEntry[] = [];
  for (const [location, page] of pages) {
    const href = root === undefined ? undefined : pageUrl(location, root);
    if (href === undefined) {
      unusable++;
      continue;
    }
    const text = (page.text ?? page.sections.join('\n')).slice(0, MAX_DOC_TEXT_CHARS).replace(TAG, ' ');
    entries.push({ href, anchor: page.title, hint: { source: 'search-index', terms: topTerms(termCounts(text)), titleTerms: [...new Set(contentTerms(page.title))] } });
  }
  return capped(entries, unusable > 0 ? `search-index:bad-docs:${unusable}` : null);
}

/** The most frequent terms first, at most MAX_TERMS_PER_DOC. */
function topTerms(counts: Map<string, number>): string[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_TERMS_PER_DOC)
    .map(([term]) => term);
}
