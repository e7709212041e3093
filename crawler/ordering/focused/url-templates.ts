/*
 * URL templates (after Bar-Yossef, Keidar and Schonfeld's DUST rules, WWW 2007): a URL's
 * path with one part replaced by a wildcard. URLs that share a template tend to share
 * what they hold, so the relevance seen on fetched pages with a template predicts it for
 * the unfetched ones:
 *
 *   - the folder template, the file name wildcarded (en/howto/{*}), measures a directory;
 *   - copy templates, another folder wildcarded ({*}/howto/sockets.html), or a
 *     dot-separated part of the file name (ch06.{*}.html), gather a page's copies in other
 *     languages or versions, whichever way the site spells the language.
 *
 * Templates are kept as 30-bit hashes of their text (with the host): no string is held
 * per URL, and a key fits a small integer, which a Map holds without a boxed number.
 * Two templates that collide (a few in a million) share their counts.
 */

export const FOLDER = 0;
export const COPY = 1;

/** At most this many copy templates per URL: the first folders and the file name's parts. */
const MAX_COPY_TEMPLATES = 3;

export interface UrlTemplate {
  kind: typeof FOLDER | typeof COPY;
  key: number;
}

/** FNV-1a over the text, folded to 30 bits. */
function hash30(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 30)) & 0x3fffffff;
}

/** The templates of a canonical http(s) URL; none for a URL that does not parse. */
export function urlTemplates(url: string): UrlTemplate[] {
  const parsed = URL.parse(url);
  if (parsed === null) return [];
  const host = parsed.host;
  const segments = parsed.pathname.split('/').slice(1);
  const n = segments.length;
  const templates: UrlTemplate[] = [];
  const withPart = (i: number, part: string): string => `${host}/${segments.map((s, j) => (j === i ? part : s)).join('/')}`;
  templates.push({ kind: FOLDER, key: hash30(`F ${withPart(n - 1, '*')}`) });
  for (let i = 0; i < n - 1 && templates.length <= MAX_COPY_TEMPLATES; i++) {
    if (segments[i] !== '') templates.push({ kind: COPY, key: hash30(`C ${withPart(i, '*')}`) });
  }
  const parts = (segments[n - 1] ?? '').split('.');
  // name.lang.html: only the parts between the first and the extension can be a variant.
  for (let k = 1; k < parts.length - 1 && templates.length <= MAX_COPY_TEMPLATES; k++) {
    templates.push({ kind: COPY, key: hash30(`C ${withPart(n - 1, parts.map((p, j) => (j === k ? '*' : p)).join('.'))}`) });
  }
  return templates;
}
