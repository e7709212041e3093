/**
 * The headers of every viewer page (stored page, notice or external-link page; a document's
 * file has its own, documentFileHeaders). The
 * policy allows no script, no fetch of any kind (only data: images and fonts, and inline styles), no
 * form submission and no <base>; `sandbox` without allow-scripts and allow-same-origin
 * gives the document an opaque origin even where a stray CSP source would match. Popups
 * are allowed, unsandboxed, for the one target=_blank link of the external-link page;
 * the sanitiser strips target attributes from stored pages.
 */

import { attachmentDisposition } from './document-file.ts';

/** Who may frame the viewer: 'self' for `forager serve`; a CSP source list otherwise. */
export interface StoredPagePolicyOptions {
  frameAncestors?: string;
}

export const DEFAULT_FRAME_ANCESTORS = "'self'";

export function storedPageCsp(options: StoredPagePolicyOptions = {}): string {
  return [
    "default-src 'none'",
    'img-src data:',
    "style-src 'unsafe-inline'",
    'font-src data:',
    "script-src 'none'",
    "object-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${options.frameAncestors ?? DEFAULT_FRAME_ANCESTORS}`,
    'sandbox allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
}

export function storedPageHeaders(options: StoredPagePolicyOptions = {}): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': storedPageCsp(options),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // Chromium may resolve the host names a page links to before anyone clicks: a stored page must not reach the network.
    'x-dns-prefetch-control': 'off',
    'cache-control': 'no-store',
    'cross-origin-resource-policy': 'same-origin',
  };
}

/**
 * The headers of a stored document's bytes: the type chosen for them (document-file.ts), sent
 * as an attachment that browsers save rather than show, never sniffed into another type, and,
 * should a browser show it all the same, sandboxed without scripts, fetches or same origin.
 */
export function documentFileHeaders(contentType: string, fileName: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-disposition': attachmentDisposition(fileName),
    'content-security-policy': "default-src 'none'; sandbox",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-resource-policy': 'same-origin',
  };
}
