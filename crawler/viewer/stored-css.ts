/**
 * A stored page's CSS, showing what the collection holds of what it names: a url() of a
 * stored raster image or font becomes a data: URI, and an @import of a stored sheet becomes
 * that sheet's rules (two levels deep), each reference resolved against the sheet that
 * wrote it. Everything else is left for sanitize-css.ts to drop. References are swapped for
 * random tokens before sanitising and back after, so nothing a page writes can pass for one
 * the collection vouched for, and the sanitiser's rules stay as they are.
 */
import { randomBytes } from 'node:crypto';
import { isInertCss, sanitizeStyleSheet } from './sanitize-css.ts';

/** What the collection holds, by absolute URL, and the page's budget for inlining it. */
export interface StoredCssResources {
  lookup(absoluteUrl: string): { contentType: string; body: Buffer } | undefined;
  /** Whether `bytes` more may be inlined into the page (and counts them if so). */
  fits(bytes: number): boolean;
}

/** A resource larger than this is left out: a page stays a page. */
const MAX_INLINED_RESOURCE_BYTES = 512 * 1024;
/** Imported sheets within imported sheets are followed this deep. */
const MAX_IMPORT_DEPTH = 2;
const INLINED_TYPE = /^(?:image\/(?:png|gif|jpeg|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)|font\/(?:woff2?|ttf|otf|sfnt|collection)|application\/(?:font-woff2?|x-font-ttf|x-font-otf|font-sfnt))$/i;

// A reference spelt plainly: url(x), url("x"), url('x'); an escaped or split one is not followed (the sanitiser drops it).
const PLAIN_URL = String.raw`url\(\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)'|([^\s"'()\\]*))\s*\)`;
const IMPORT_TARGET = String.raw`(?:${PLAIN_URL}|"([^"\\\n]*)"|'([^'\\\n]*)')`;
/** An @import rule (its target and media list) or a url() reference, whichever comes first. */
const REFERENCE = new RegExp(String.raw`@import\s+${IMPORT_TARGET}([^;{}]*);|${PLAIN_URL}`, 'gi');

/** Sanitises `css` (a <style> or a stored sheet at `sheetUrl`), with the stored resources it names inlined. */
export function sanitizeStoredCss(css: string, sheetUrl: string, resources: StoredCssResources): string {
  const token = `forager-ref-${randomBytes(8).toString('hex')}-`;
  const inlined: string[] = [];
  const prepared = new ReferenceInliner(resources, token, inlined).prepare(css, sheetUrl, 0);
  const sanitized = sanitizeStyleSheet(prepared, { fontFaces: true });
  if (inlined.length === 0) return sanitized;
  return sanitized.replace(new RegExp(`${token}(\\d+)`, 'g'), (_match, index: string) => `url("${inlined[Number(index)] ?? ''}")`);
}

class ReferenceInliner {
  readonly #resources: StoredCssResources;
  readonly #token: string;
  readonly #inlined: string[];

  constructor(resources: StoredCssResources, token: string, inlined: string[]) {
    this.#resources = resources;
    this.#token = token;
    this.#inlined = inlined;
  }

  /** The sheet with its stored references turned into tokens and its stored imports into their rules. */
  prepare(css: string, sheetUrl: string, depth: number): string {
    return css.replace(REFERENCE, (match: string, ...groups: (string | undefined)[]) => {
      const [importUrl1, importUrl2, importUrl3, importString1, importString2, media, url1, url2, url3] = groups;
      if (match.charCodeAt(0) === 0x40) return this.#import(importUrl1 ?? importUrl2 ?? importUrl3 ?? importString1 ?? importString2 ?? '', media ?? '', sheetUrl, depth) ?? match;
      return this.#reference(url1 ?? url2 ?? url3 ?? '', sheetUrl) ?? match;
    });
  }

  /** An imported sheet's rules in place of its @import (within @media when the rule has a media list); undefined when it is not stored. */
  #import(ref: string, media: string, sheetUrl: string, depth: number): string | undefined {
    if (depth >= MAX_IMPORT_DEPTH) return undefined;
    const url = absolute(ref, sheetUrl);
    const stored = url === undefined ? undefined : this.#resources.lookup(url);
    if (url === undefined || stored === undefined || !/^text\/css\b/i.test(stored.contentType) || !this.#resources.fits(stored.body.length)) return undefined;
    const rules = this.prepare(stored.body.toString('utf8'), url, depth + 1);
    const list = media.trim();
    return list === '' ? rules : isInertCss(list) ? `@media ${list}{${rules}}` : '';
  }

  /** A token standing for the stored resource as a data: URI; undefined when it is not stored or not shown. */
  #reference(ref: string, sheetUrl: string): string | undefined {
    const url = absolute(ref, sheetUrl);
    const stored = url === undefined ? undefined : this.#resources.lookup(url);
    const type = stored?.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (stored === undefined || !INLINED_TYPE.test(type) || stored.body.length > MAX_INLINED_RESOURCE_BYTES || !this.#resources.fits(stored.body.length)) return undefined;
    this.#inlined.push(`data:${type};base64,${stored.body.toString('base64')}`);
    return `${this.#token}${this.#inlined.length - 1}`;
  }
}

/** `ref` against `base` without its fragment, when it is http(s). */
function absolute(ref: string, base: string): string | undefined {
  const url = URL.parse(ref.trim(), base);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  url.hash = '';
  return url.href;
}
