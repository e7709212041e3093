/**
 * One mirrored page: the stored HTML sanitised exactly as the viewer does, its links sent to
 * other files of the mirror (relative) or left as marked external links, and a
 * Content-Security-Policy <meta> plus a banner naming where and when it was saved.
 *
 * The policy <meta> counts only inside <head>: it is written right after the sanitiser's
 * own `<meta charset>`, before anything that could open <body>. The banner goes right after
 * the page's <body> tag (or after </head>, or at the start when the page has neither); the
 * sanitiser's output escapes '<' in text, attribute values and CSS, so the first `<body`
 * in it is the real tag.
 */
import { escapeAttribute, escapeText } from '../../viewer/html-escape.ts';
import { sanitizeStoredHtml, type LinkTarget, type StoredRequisite } from '../../viewer/sanitize-html.ts';
import { relativeHref } from './names.ts';
import type { MirrorSourcePage } from './source.ts';

/** Nothing loads from anywhere, even markup the sanitiser let through by mistake. */
export const MIRROR_CSP = "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";
export const MIRROR_HEAD_META =
  `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(MIRROR_CSP)}">\n<meta name="referrer" content="no-referrer">\n`;

const SANITIZED_PREFIX = '<!DOCTYPE html>\n<meta charset="utf-8">\n';
const BODY_TAG = /<body[\s>]/;

/** "2024-05-01 14:03 UTC": the same on every machine. */
export function formatUtc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

// Inline styles that page CSS can hardly override: `all: initial` resets what the page sets on div and a.
const BANNER_STYLE = 'all:initial;display:block;box-sizing:border-box;width:100%;margin:0 0 12px;padding:8px 14px;' +
  'background:#fdf6d8;border-bottom:1px solid #d9c98a;color:#333;font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif';
const BANNER_LINK_STYLE = 'all:initial;color:#1a5bb8;text-decoration:underline;cursor:pointer;font:inherit;word-break:break-all';

function banner(url: string, fetchedAt: number, indexHref: string): string {
  const linkStyle = escapeAttribute(BANNER_LINK_STYLE);
  return `<div class="forager-mirror-banner" style="${escapeAttribute(BANNER_STYLE)}">Saved by Forager from ` +
    `<a href="${escapeAttribute(url)}" rel="noopener noreferrer" class="forager-external forager-mirror-source" style="${linkStyle}">${escapeText(url)}</a>` +
    ` on ${formatUtc(fetchedAt)} · <a href="${escapeAttribute(indexHref)}" style="${linkStyle}">Back to the mirror's index</a></div>\n`;
}

/** Where the banner goes in a sanitised page: after <body ...>, else after </head>, else at the start. */
function bannerOffset(page: string): number {
  const body = BODY_TAG.exec(page);
  if (body !== null) return page.indexOf('>', body.index) + 1;
  const headEnd = page.indexOf('</head>');
  return headEnd === -1 ? 0 : headEnd + '</head>'.length;
}

/** The mirror's file for one stored page; `path` is its own mirror path. */
export function mirrorPageHtml(
  page: MirrorSourcePage,
  path: string,
  pathFor: (absoluteUrl: string) => string | undefined,
  requisite?: (absoluteUrl: string) => StoredRequisite | undefined,
): string {
  const indexHref = relativeHref(path, 'index.html');
  const top = banner(page.url, page.fetchedAt, indexHref);
  if (page.html === null) {
    return `${SANITIZED_PREFIX}${MIRROR_HEAD_META}<title>${escapeText(page.url)}</title>\n${top}` +
      '<p>The stored copy of this page could not be read back from the collection.</p>\n';
  }
  const known = new Map<string, LinkTarget>();
  const linkFor = (absoluteUrl: string): LinkTarget => {
    let target = known.get(absoluteUrl);
    if (target === undefined) {
      const targetPath = pathFor(absoluteUrl);
      const hash = absoluteUrl.indexOf('#');
      target = targetPath === undefined
        ? { kind: 'external', href: absoluteUrl }
        : { kind: 'internal', href: relativeHref(path, targetPath) + (hash === -1 ? '' : absoluteUrl.slice(hash)) };
      known.set(absoluteUrl, target);
    }
    return target;
  };
  const sanitized = sanitizeStoredHtml(page.html, requisite === undefined ? { pageUrl: page.url, linkFor } : { pageUrl: page.url, linkFor, requisite });
  const rest = sanitized.startsWith(SANITIZED_PREFIX) ? sanitized.slice(SANITIZED_PREFIX.length) : sanitized;
  const at = bannerOffset(rest);
  return `${SANITIZED_PREFIX}${MIRROR_HEAD_META}${rest.slice(0, at)}${top}${rest.slice(at)}`;
}
