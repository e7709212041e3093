/**
 * The viewer's own small pages: not found, a stored page that is not HTML, a plain-text
 * document, a PDF (which the app draws itself) and the external-link page. Static HTML
 * without scripts; every stored or requested string is escaped.
 */
import { escapeAttribute, escapeText } from './html-escape.ts';

const STYLE = 'body{font:15px/1.5 system-ui,sans-serif;margin:2rem;max-width:46rem;color:#222}' +
  'code{word-break:break-all;background:#f2f2f2;padding:.1rem .3rem}dt{font-weight:600}dd{margin:0 0 .5rem}';

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<meta charset="utf-8">\n<title>${escapeText(title)}</title>\n<style>${STYLE}</style>\n` +
    `<body>\n<h1>${escapeText(title)}</h1>\n${body}\n</body>\n`;
}

export function messagePage(title: string, message: string): string {
  return page(title, `<p>${escapeText(message)}</p>`);
}

export interface NonHtmlFacts {
  url: string;
  status: number;
  contentType: string | null;
  bodyBytes: number;
  /** Where a redirect pointed, with the href the viewer uses for it. */
  redirect?: { url: string; href: string };
}

export function nonHtmlPage(facts: NonHtmlFacts): string {
  const rows: [string, string][] = [
    ['Address', `<code>${escapeText(facts.url)}</code>`],
    ['HTTP status', escapeText(String(facts.status))],
    ['Content type', facts.contentType === null ? 'none given' : `<code>${escapeText(facts.contentType)}</code>`],
    ['Stored body', facts.bodyBytes === 0 ? 'none' : `${facts.bodyBytes.toLocaleString('en')} bytes, not shown`],
  ];
  if (facts.redirect !== undefined) {
    rows.push(['Redirects to', `<a href="${escapeAttribute(facts.redirect.href)}">${escapeText(facts.redirect.url)}</a>`]);
  }
  const list = rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('\n');
  return page('Not an HTML page', `<p>Forager stored this response, but it is not an HTML page it can show.</p>\n<dl>\n${list}\n</dl>`);
}

/** Characters of a plain-text document shown at most: the rest is in the saved file. */
export const MAX_SHOWN_TEXT_CHARS = 2_000_000;

const TEXT_STYLE = 'body{margin:0;color:#222;background:#fff}' +
  'pre{margin:1rem;white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}' +
  'p{font:14px/1.5 system-ui,sans-serif;margin:1rem}';

/** A plain-text document as text: escaped into <pre>, so markup in it is shown, never read. */
export function plainTextPage(url: string, text: string): string {
  const cut = text.length > MAX_SHOWN_TEXT_CHARS;
  const shown = cut ? text.slice(0, MAX_SHOWN_TEXT_CHARS) : text;
  const more = cut ? `\n<p>The first ${MAX_SHOWN_TEXT_CHARS.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters; save the file to read the rest.</p>` : '';
  return `<!DOCTYPE html>\n<meta charset="utf-8">\n<title>${escapeText(url)}</title>\n<style>${TEXT_STYLE}</style>\n<pre>${escapeText(shown)}</pre>${more}\n`;
}

/** A stored PDF in the frame (reached by a link of a stored page): the library's viewer shows it, the frame does not. */
export function pdfNoticePage(url: string, bodyBytes: number): string {
  return page('A PDF document of this collection',
    `<p>Forager stored this PDF (${bodyBytes.toLocaleString('en')} bytes). Open it from the Library to read it page by page, or save it from there.</p>\n` +
    `<p>Address: <code>${escapeText(url)}</code></p>`);
}

export function externalLinkPage(url: URL): string {
  const hasCredentials = url.username !== '' || url.password !== '';
  const warning = hasCredentials
    ? `\n<p><strong>Careful:</strong> the address carries a user name; the site it opens is <code>${escapeText(url.host)}</code>.</p>`
    : '';
  return page('This link leaves the collection',
    `<p>The page is not in this offline collection. Opening it fetches it from the web, outside Forager.</p>\n` +
    `<p>Site: <code>${escapeText(url.host)}</code><br>Address: <code>${escapeText(url.href)}</code></p>${warning}\n` +
    `<p><a href="${escapeAttribute(url.href)}" target="_blank" rel="noopener noreferrer">Open in your browser</a></p>`);
}
