/**
 * Turns a stored (untrusted) HTML page into a readable, inert document: one streaming
 * htmlparser2 pass, and the output written here from an allowlist (html-policy.ts), with
 * every text and attribute value escaped. The result runs no script, loads nothing (no
 * image, style sheet, font, frame or plugin; only data: raster images), submits no form,
 * refreshes nowhere and opens no window; its links go where `linkFor` says.
 *
 * Decisions:
 * - <noscript> is unwrapped: the viewer runs no script, so its content is what the page
 *   shows such a reader (the crawler also reads its links). <template> is removed with
 *   its content, which a browser never shows.
 * - An <img> keeps its element for a data: raster image, or for a raster image the
 *   collection stored as the page's requisite (`requisite`), inlined as a data: URI so that
 *   nothing is fetched; otherwise its alt text is shown in <span class="forager-image">.
 *   A <link rel=stylesheet> the collection stored becomes a <style> with the sheet,
 *   sanitised like any other; in a page with stored requisites, the images, fonts and
 *   imported sheets its CSS names are inlined from the collection too (stored-css.ts). <iframe>/<frame> become a link to the framed
 *   page (<span|p class="forager-frame">), since the crawler follows frames as links.
 * - Links resolve against the page's first <base href> (wherever it stands) when it is
 *   http(s), else the page URL, as the crawler resolved them (extract-html.ts), so that
 *   they find the stored pages. A link is therefore written once the whole page is read.
 *   <base> itself is dropped, and every written href is absolute or a bare same-document
 *   #fragment. Non-http(s) links (javascript:, data:, mailto:, ...) lose their href and
 *   stay as text.
 * - <style> and style="" are kept with every resource reference removed (sanitize-css.ts).
 * - Comments, the doctype and processing instructions are dropped; the output starts
 *   with <!DOCTYPE html> and <meta charset="utf-8">.
 * - Inside <svg> and <math> only their listed elements are kept (no foreign markup
 *   that the browser could parse differently from htmlparser2).
 *
 * Cost: parsing is bounded in depth (parse/bounded-parse.ts), so it stays linear: when it
 * restarts, what was open stays open in the output (the browser caps depth anyway).
 */
import { parseBounded, type BoundedHandler } from '../parse/bounded-parse.ts';
import { effectiveBase } from '../parse/extract-html.ts';
import { escapeAttribute, escapeText } from './html-escape.ts';
import {
  ARIA_ATTRIBUTE, DATA_IMAGE, DROPPED, GLOBAL_ATTRIBUTES, HTML_ELEMENTS, MATH_ATTRIBUTES, MATH_DROPPED, MATH_ELEMENTS,
  RENAMED, SVG_ATTRIBUTES, SVG_DROPPED, SVG_ELEMENTS, VOID_ELEMENTS,
} from './html-policy.ts';
import { isInertCss, sanitizeStyleDeclarations, sanitizeStyleSheet } from './sanitize-css.ts';
import { sanitizeStoredCss } from './stored-css.ts';

/** Where a link of a stored page goes; the caller writes the hrefs. */
export type LinkTarget = { kind: 'internal'; href: string } | { kind: 'external'; href: string };

export interface SanitizeOptions {
  /** The stored page's URL: links resolve against it (or its <base href>). */
  pageUrl: string;
  /** Called with each http(s) link target, absolute and with its #fragment. */
  linkFor(absoluteUrl: string): LinkTarget;
  /** A stored requisite (image or stylesheet) of the page by absolute URL; without it, none is shown. */
  requisite?(absoluteUrl: string): StoredRequisite | undefined;
}

export interface StoredRequisite {
  contentType: string;
  body: Buffer;
}

/** An inlined image bigger than this is shown by its alt text: a page stays a page. */
const MAX_INLINE_IMAGE_BYTES = 512 * 1024;
/** Inlined images and stylesheets of one page, in all. */
const MAX_INLINE_BYTES = 8 * 1024 * 1024;
const RASTER_TYPE = /^image\/(?:png|gif|jpeg|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)$/i;

const NS_HTML = 0;
const NS_SVG = 1;
const NS_MATH = 2;
type Namespace = typeof NS_HTML | typeof NS_SVG | typeof NS_MATH;

/** One open element of the input. `close` is the end tag to write ('' for none). */
interface Frame {
  readonly close: string;
  readonly drop: boolean;
  readonly childNs: Namespace;
}

const DROP_FRAME: Frame = { close: '', drop: true, childNs: NS_HTML };
const UNWRAP_FRAMES: readonly Frame[] = [NS_HTML, NS_SVG, NS_MATH].map((childNs) => ({ close: '', drop: false, childNs: childNs as Namespace }));
const STYLE_FRAME: Frame = { close: '', drop: false, childNs: NS_HTML };
const keptFrames = new Map<string, Frame>();

function keptFrame(name: string, childNs: Namespace): Frame {
  const key = `${childNs}:${name}`;
  let frame = keptFrames.get(key);
  if (frame === undefined) {
    frame = { close: VOID_ELEMENTS.has(name) ? '' : `</${name}>`, drop: false, childNs };
    keptFrames.set(key, frame);
  }
  return frame;
}

const EMPTY_SET: ReadonlySet<string> = new Set();
const EXTERNAL_LINK_OWN = new Set(['class', 'title']);
const HTML_SPACE_EDGES = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const LOCAL_PAINT_REFERENCE = /^\s*url\(\s*(['"]?)#[\w.:-]*\1\s*\)\s*$/i;

/** Markup that depends on the page's base URL, written once the whole page is read. */
type Deferred =
  | { kind: 'a'; attribs: Record<string, string> }
  | { kind: 'frame'; wrapper: 'p' | 'span'; src: string }
  | { kind: 'img'; attribs: Record<string, string> }
  | { kind: 'stylesheet'; href: string; media: string | undefined }
  | { kind: 'style'; css: string; media: string | undefined };

class StoredPageSanitizer implements BoundedHandler {
  readonly #out: (string | Deferred)[] = ['<!DOCTYPE html>\n<meta charset="utf-8">\n'];
  readonly #stack: Frame[] = [];
  readonly #pageUrl: string;
  readonly #linkFor: (absoluteUrl: string) => LinkTarget;
  readonly #requisite: ((absoluteUrl: string) => StoredRequisite | undefined) | undefined;
  #inlinedBytes = 0;
  #base = '';
  #baseHref: string | undefined;
  /** How many dropped elements enclose the current position. */
  #skip = 0;
  #styleText: string[] | undefined;
  #styleMedia: string | undefined;

  constructor(options: SanitizeOptions) {
    this.#pageUrl = options.pageUrl;
    this.#linkFor = options.linkFor;
    this.#requisite = options.requisite;
  }

  run(html: string): string {
    parseBounded(html, this);
    this.#closeAll();
    this.#base = effectiveBase(this.#pageUrl, this.#baseHref);
    let page = '';
    for (const part of this.#out) page += typeof part === 'string' ? part : this.#render(part);
    return page;
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    if (name === 'base' && this.#baseHref === undefined && attribs.href !== undefined) this.#baseHref = attribs.href.trim();
    this.#open(name, attribs);
  }

  onclosetag(): void {
    this.#pop();
  }

  /** A fresh parser starts outside any element: so must we, unless we are in plain HTML. */
  onrestart(): void {
    if (this.#skip > 0 || this.#ns() !== NS_HTML) this.#closeAll();
  }

  ontext(text: string): void {
    if (this.#skip > 0) return;
    if (this.#styleText !== undefined) this.#styleText.push(text);
    else this.#out.push(escapeText(text));
  }

  #ns(): Namespace {
    return this.#stack.length === 0 ? NS_HTML : (this.#stack[this.#stack.length - 1] as Frame).childNs;
  }

  #pop(): void {
    const frame = this.#stack.pop();
    if (frame === undefined) return;
    if (frame.drop) this.#skip--;
    else if (frame === STYLE_FRAME) this.#endStyle();
    else if (frame.close !== '') this.#out.push(frame.close);
  }

  #closeAll(): void {
    while (this.#stack.length > 0) this.#pop();
  }

  #drop(): void {
    this.#skip++;
    this.#stack.push(DROP_FRAME);
  }

  #unwrap(ns: Namespace): void {
    this.#stack.push(UNWRAP_FRAMES[ns] as Frame);
  }

  #keep(name: string, attributes: string, childNs: Namespace): void {
    this.#out.push(`<${name}${attributes}>`);
    this.#stack.push(keptFrame(name, childNs));
  }

  #open(name: string, attribs: Record<string, string>): void {
    if (this.#skip > 0) return this.#drop();
    const ns = this.#ns();
    if (ns !== NS_HTML) return this.#openForeign(name, attribs, ns);
    switch (name) {
      case 'a':
        this.#out.push({ kind: 'a', attribs });
        this.#stack.push(keptFrame('a', NS_HTML));
        return;
      case 'img':
        return this.#openImage(attribs);
      case 'input':
        if (attribs.type?.trim().toLowerCase() === 'image') return this.#showAlt(attribs.alt);
        break;
      case 'iframe':
      case 'frame':
        if (attribs.src !== undefined) this.#out.push({ kind: 'frame', wrapper: name === 'frame' ? 'p' : 'span', src: attribs.src });
        return this.#drop();
      case 'style':
        return this.#openStyle(attribs);
      case 'link':
        if (this.#requisite !== undefined && attribs.href !== undefined && /(^|\s)stylesheet(\s|$)/i.test(attribs.rel ?? '')) {
          this.#out.push({ kind: 'stylesheet', href: attribs.href, media: attribs.media });
        }
        return this.#drop();
      case 'svg':
        return this.#keep('svg', this.#foreignAttributes(attribs, SVG_ATTRIBUTES), NS_SVG);
      case 'math':
        return this.#keep('math', this.#foreignAttributes(attribs, MATH_ATTRIBUTES), NS_MATH);
    }
    if (DROPPED.has(name)) return this.#drop();
    const renamed = RENAMED.get(name);
    if (renamed !== undefined) return this.#keep(renamed, this.#htmlAttributes(attribs, EMPTY_SET), NS_HTML);
    const allowed = HTML_ELEMENTS.get(name);
    if (allowed === undefined) return this.#unwrap(NS_HTML);
    this.#keep(name, this.#htmlAttributes(attribs, allowed), NS_HTML);
  }

  #openForeign(name: string, attribs: Record<string, string>, ns: Namespace): void {
    const lower = name.toLowerCase();
    if (ns === NS_SVG) {
      if (SVG_DROPPED.has(lower)) return this.#drop();
      const svgName = SVG_ELEMENTS.get(lower);
      if (svgName !== undefined) return this.#keep(svgName, this.#foreignAttributes(attribs, SVG_ATTRIBUTES), NS_SVG);
    } else {
      if (MATH_DROPPED.has(lower)) return this.#drop();
      if (MATH_ELEMENTS.has(lower)) return this.#keep(lower, this.#foreignAttributes(attribs, MATH_ATTRIBUTES), NS_MATH);
    }
    this.#unwrap(ns);
  }

  #htmlAttributes(attribs: Record<string, string>, allowed: ReadonlySet<string>, except: ReadonlySet<string> = EMPTY_SET): string {
    let out = '';
    for (const name in attribs) {
      if (except.has(name) || !(GLOBAL_ATTRIBUTES.has(name) || allowed.has(name) || ARIA_ATTRIBUTE.test(name))) continue;
      out += attribute(name, attribs[name] as string);
    }
    return out;
  }

  #foreignAttributes(attribs: Record<string, string>, allowed: ReadonlySet<string>): string {
    let out = '';
    for (const name in attribs) {
      if (!allowed.has(name) && !ARIA_ATTRIBUTE.test(name)) continue;
      const value = attribs[name] as string;
      // Paint and clip references may point into the document, never outside it.
      if (name !== 'style' && !isInertCss(value) && !LOCAL_PAINT_REFERENCE.test(value)) continue;
      out += attribute(name, value);
    }
    return out;
  }

  #openImage(attribs: Record<string, string>): void {
    const src = attribs.src?.replace(HTML_SPACE_EDGES, '');
    if (src !== undefined && this.#requisite !== undefined && !DATA_IMAGE.test(src)) {
      // Whether the collection holds the image depends on the base URL, known once the page is read.
      this.#out.push({ kind: 'img', attribs });
      return this.#unwrap(NS_HTML);
    }
    if (src === undefined || !DATA_IMAGE.test(src)) return this.#showAlt(attribs.alt);
    this.#keep('img', `${this.#htmlAttributes(attribs, HTML_ELEMENTS.get('img') as ReadonlySet<string>)} src="${escapeAttribute(src)}"`, NS_HTML);
  }

  /** An image that is not kept: its alt text, if it has one. */
  #showAlt(alt: string | undefined): void {
    const text = alt?.trim();
    if (text) this.#out.push(`<span class="forager-image">${escapeText(text)}</span>`);
    this.#unwrap(NS_HTML);
  }

  #openStyle(attribs: Record<string, string>): void {
    this.#styleText = [];
    this.#styleMedia = attribs.media;
    this.#stack.push(STYLE_FRAME);
  }

  #endStyle(): void {
    const text = (this.#styleText as string[]).join('');
    const media = this.#styleMedia;
    this.#styleText = undefined;
    this.#styleMedia = undefined;
    // With stored requisites, what the sheet names resolves against the page's base, known once the page is read.
    if (this.#requisite !== undefined) this.#out.push({ kind: 'style', css: text, media });
    else this.#out.push(styleElement(sanitizeStyleSheet(text), media));
  }

  #render(part: Deferred): string {
    if (part.kind === 'img') return this.#renderStoredImage(part.attribs);
    if (part.kind === 'stylesheet') return this.#renderStoredSheet(part.href, part.media);
    if (part.kind === 'style') return styleElement(this.#sanitizeCss(part.css, this.#base), part.media);
    if (part.kind === 'frame') {
      const target = this.#target(part.src);
      if (target === undefined || target.absolute === undefined) return '';
      const link = `<a href="${escapeAttribute(target.href)}">${escapeText(target.absolute)}</a>`;
      return `<${part.wrapper} class="forager-frame">Embedded page: ${link}</${part.wrapper}>`;
    }
    const allowed = HTML_ELEMENTS.get('a') as ReadonlySet<string>;
    const target = part.attribs.href === undefined ? undefined : this.#target(part.attribs.href);
    if (target === undefined) return `<a${this.#htmlAttributes(part.attribs, allowed)}>`;
    if (target.external === undefined) return `<a${this.#htmlAttributes(part.attribs, allowed)} href="${escapeAttribute(target.href)}">`;
    const className = part.attribs.class === undefined ? 'forager-external' : `${part.attribs.class} forager-external`;
    return `<a${this.#htmlAttributes(part.attribs, allowed, EXTERNAL_LINK_OWN)} href="${escapeAttribute(target.href)}"` +
      ` rel="noopener noreferrer" class="${escapeAttribute(className)}"` +
      ` title="${escapeAttribute(`Leaves the collection: ${target.external}`)}">`;
  }

  /** A stored raster image, inlined; otherwise its alt text. */
  #renderStoredImage(attribs: Record<string, string>): string {
    const stored = this.#stored(attribs.src ?? '');
    const type = stored?.contentType.split(';')[0]?.trim() ?? '';
    if (stored === undefined || !RASTER_TYPE.test(type) || stored.body.length > MAX_INLINE_IMAGE_BYTES || !this.#fits(stored.body.length)) {
      const text = attribs.alt?.trim();
      return text ? `<span class="forager-image">${escapeText(text)}</span>` : '';
    }
    const kept = this.#htmlAttributes(attribs, HTML_ELEMENTS.get('img') as ReadonlySet<string>);
    return `<img${kept} src="data:${type.toLowerCase()};base64,${stored.body.toString('base64')}">`;
  }

  /** A stored stylesheet, sanitised like a <style> of the page, what it names resolved against its own URL. */
  #renderStoredSheet(href: string, media: string | undefined): string {
    const url = this.#absolute(href);
    const stored = url === undefined ? undefined : this.#requisite?.(url);
    if (url === undefined || stored === undefined || !/^text\/css\b/i.test(stored.contentType) || !this.#fits(stored.body.length)) return '';
    return styleElement(this.#sanitizeCss(stored.body.toString('utf8'), url), media);
  }

  /** CSS with the stored images, fonts and imported sheets it names inlined (stored-css.ts), when the page has requisites. */
  #sanitizeCss(css: string, sheetUrl: string): string {
    const lookup = this.#requisite;
    if (lookup === undefined) return sanitizeStyleSheet(css);
    return sanitizeStoredCss(css, sheetUrl, { lookup, fits: (bytes) => this.#fits(bytes) });
  }

  #stored(rawHref: string): StoredRequisite | undefined {
    const url = this.#absolute(rawHref);
    return url === undefined ? undefined : this.#requisite?.(url);
  }

  /** An http(s) reference against the page's base, without its fragment. */
  #absolute(rawHref: string): string | undefined {
    const url = URL.parse(rawHref.replace(HTML_SPACE_EDGES, ''), this.#base);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
    url.hash = '';
    return url.href;
  }

  #fits(bytes: number): boolean {
    if (this.#inlinedBytes + bytes > MAX_INLINE_BYTES) return false;
    this.#inlinedBytes += bytes;
    return true;
  }

  /**
   * Where an href goes, or undefined when it must not be followed. `absolute` is the
   * resolved URL (absent for a same-document fragment); `external` is set for a link
   * out of the collection.
   */
  #target(rawHref: string): { href: string; absolute?: string; external?: string } | undefined {
    const href = rawHref.replace(HTML_SPACE_EDGES, '');
    // Same-document fragments work as written, unless a <base> pointed them elsewhere.
    if (href.startsWith('#') && this.#base === this.#pageUrl) return { href };
    const url = URL.parse(href, this.#base);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
    const absolute = url.href;
    const target = this.#linkFor(absolute);
    return target.kind === 'internal' ? { href: target.href, absolute } : { href: target.href, absolute, external: absolute };
  }
}

/** A <style> element for sanitised CSS (which never holds '<', so it cannot end its element); nothing when it is empty. */
function styleElement(css: string, media: string | undefined): string {
  if (css.trim() === '') return '';
  return `<style${media === undefined || !isInertCss(media) ? '' : attribute('media', media)}>${css}</style>`;
}

function attribute(name: string, value: string): string {
  if (name !== 'style') return ` ${name}="${escapeAttribute(value)}"`;
  const css = sanitizeStyleDeclarations(value);
  return css === '' ? '' : ` style="${escapeAttribute(css)}"`;
}

export function sanitizeStoredHtml(html: string, options: SanitizeOptions): string {
  return new StoredPageSanitizer(options).run(html);
}
