import type { ExtractedPage } from './extract-html.ts';

/** Below this many words, a page of more than SIZABLE_HTML bytes shows little of what it holds. */
const FEW_WORDS = 60;
const SIZABLE_HTML = 4096;
/** A page with scripts and fewer links than this may be building its navigation itself. */
const FEW_LINKS = 3;
const ASKS_FOR_SCRIPT = /\b(java\s*script|enable\s+js|js\s+(is\s+)?(required|disabled))\b/i;

/**
 * Why a parsed page may need a browser to show its text and links, or null when its HTML
 * holds them. Cheap and from the raw HTML only: the render policy (crawler/render) decides
 * whether to act on it, by comparing renders with what the HTML gave.
 */
export function browserNeedSign(page: ExtractedPage, htmlBytes: number): string | null {
  const signs = page.scriptSigns;
  if (signs.emptyAppRoot) return 'empty-app-root';
  if (ASKS_FOR_SCRIPT.test(signs.noscriptText)) return 'noscript-asks-for-javascript';
  if (signs.scripts > 0 && page.links.length < FEW_LINKS) return 'scripts-and-few-links';
  if (signs.scripts > 0 && page.wordCount < FEW_WORDS && htmlBytes > SIZABLE_HTML) return 'little-text-for-its-size';
  return null;
}
