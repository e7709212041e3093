/** url(…) with or without quotes, and @import "…". */
const URL_FUNCTION = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)/gi;
const IMPORT_STRING = /@import\s+(?:"([^"]*)"|'([^']*)')/gi;
/** Stylesheets larger than this are read only this far for references. */
const MAX_CSS_CHARS = 2_000_000;

/**
 * The URLs a stylesheet refers to (fonts, background images, imported sheets), as written,
 * in order, without repeats or data: URIs; at most `max`.
 */
export function cssReferences(css: string, max: number): string[] {
  const text = css.length > MAX_CSS_CHARS ? css.slice(0, MAX_CSS_CHARS) : css;
  const found = new Set<string>();
  for (const pattern of [IMPORT_STRING, URL_FUNCTION]) {
    for (const match of text.matchAll(pattern)) {
      const ref = (match[1] ?? match[2] ?? match[3] ?? '').trim();
      if (ref === '' || ref.startsWith('data:') || ref.startsWith('#')) continue;
      found.add(ref);
      if (found.size >= max) return [...found];
    }
  }
  return [...found];
}
