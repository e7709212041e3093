/**
 * One streaming pass over an HTML page (htmlparser2 callbacks, no DOM) that
 * collects the title, the visible text, the outgoing links with their anchor text
 * and surrounding words, the page-level directives (base, canonical, robots,
 * meta refresh, language), and the search index a documentation site's scripts reveal.
 *
 * Visible text is accumulated already whitespace-collapsed. A link remembers the
 * text offsets where it opened and closed; its anchor text and context windows
 * are cut from the finished text once parsing ends, so the cost stays linear in
 * the page size however many links there are, with no per-word allocation.
 */
import { parseBounded, type BoundedHandler } from './bounded-parse.ts';
import { collapseWhitespace, isSpace } from './html-whitespace.ts';
import { DEFAULT_AGENT_TOKEN, parseMetaRefresh, parseRobotsDirectives, type MetaRefresh, type RobotsDirectives } from './meta-directives.ts';

export type LinkTag = 'a' | 'area' | 'frame' | 'iframe' | 'link';

export interface ExtractedLink {
  /** The attribute as written (href, or src for frames), trimmed; not resolved. */
  href: string;
  /**
   * Anchor text, whitespace-collapsed: the visible text inside the link, else its
   * hidden text (an SVG title, noscript text), else an image's alt, else the title
   * attribute (alt or title for <area>, title for frames).
   */
  anchor: string;
  /** Up to CONTEXT_WORDS words of visible text before the link. */
  contextBefore: string;
  /** Up to CONTEXT_WORDS words of visible text after the link. */
  contextAfter: string;
  /** rel has the token nofollow. The page-level robots nofollow is reported separately. */
  nofollow: boolean;
  /** The rel attribute as written, '' when absent. */
  rel: string;
  /** 'link' is <link rel=alternate|next|prev>: it has no anchor text and no context. */
  tag: LinkTag;
}

/**
 * A site resource a page's scripts reveal: the search index of a Sphinx site (its
 * _static/documentation_options.js) or of a MkDocs site (its search/main.js).
 */
export interface SiteResourceRef {
  kind: 'search-index';
  /** Absolute (resolved against the script's URL). */
  href: string;
}

export interface ExtractedPage {
  title: string;
  /** Visible text: words separated by one space, or a newline where a block element intervened. */
  text: string;
  /** The text reached maxTextChars and the rest of the page contributed no words. */
  textTruncated: boolean;
  wordCount: number;
  links: ExtractedLink[];
  /** Links beyond maxLinks, counted but not returned. */
  linksDropped: number;
  /** The first <base href>, trimmed, as written. */
  baseHref?: string;
  /** What relative links resolve against: see effectiveBase. */
  resolvedBase: string;
  metaRefresh?: MetaRefresh;
  /** The first <link rel=canonical> href, trimmed, as written. */
  canonical?: string;
  /** From <meta name=robots> and <meta name={agentToken}>, combined (any noindex wins). */
  robots: RobotsDirectives;
  lang?: string;
  /** Distinct site resources named by the page's scripts, at most MAX_SITE_RESOURCES. */
  siteResources: SiteResourceRef[];
  /** What says the page may be built by scripts (crawler/parse/render-signals.ts reads it). */
  scriptSigns: ScriptSigns;
  /** Stylesheets, icons and images the page shows, as written (at most MAX_REQUISITES): what it needs offline. */
  requisites: string[];
}

/** Marks of a page whose content scripts build. */
export interface ScriptSigns {
  /** <script> elements, inline or not. */
  scripts: number;
  /** An application root (#root, #app, #__next, …) with no text and no links inside. */
  emptyAppRoot: boolean;
  /** The text of the page's <noscript> elements, at most NOSCRIPT_CHARS. */
  noscriptText: string;
}

export interface ExtractOptions {
  /** Default 10,000. */
  maxLinks?: number;
  /** Default 2,000,000. */
  maxTextChars?: number;
  /** Our robots product token, for <meta name=TOKEN> and "TOKEN: noindex". Default 'forager'. */
  agentToken?: string;
}

export const DEFAULT_MAX_LINKS = 10_000;
export const DEFAULT_MAX_TEXT_CHARS = 2_000_000;
const CONTEXT_WORDS = 10;
/** Bounds on text gathered for one link or the title; an unclosed <a> or <title> can swallow a page. */
const MAX_ANCHOR_CHARS = 1000;
const MAX_TITLE_CHARS = 1000;
/** A real documentation page names one search index; a page naming many is not one. */
const MAX_SITE_RESOURCES = 4;
/** Element ids single-page-app frameworks mount into. */
const APP_ROOT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'main-app']);
const NOSCRIPT_CHARS = 500;
/** Requisites kept per page: a gallery's thousandth image is not what makes the page legible. */
const MAX_REQUISITES = 64;
/** <link> relations naming something the page shows. */
const REQUISITE_RELS = new Set(['stylesheet', 'icon']);
/** Scripts looked at per page: the search index scripts sit among a page's first few. */
const MAX_SCRIPTS = 200;

/** Text inside is never content: raw-text elements and inert templates. */
const SKIP = 1;
/** Text inside is not visible page text, but can still name a link (an SVG icon's title). */
const HIDE = 2;
/** Separates the words on either side with a newline. */
const BLOCK = 4;
/** Separates the words on either side with a space. */
const CELL = 8;
/** Links inside are not real (template markup such as href="{{url}}"). */
const NO_LINKS = 16;

const TAG_FLAGS = new Map<string, number>([
  ['script', SKIP],
  ['style', SKIP],
  ['template', SKIP | NO_LINKS | BLOCK],
  ['iframe', SKIP | CELL],
  ['noembed', SKIP],
  ['noframes', SKIP],
  ['noscript', HIDE | BLOCK],
  ['svg', HIDE | CELL],
  ['title', HIDE | BLOCK],
  ['td', CELL],
  ['th', CELL],
  ['button', CELL],
  ['input', CELL],
  ['select', CELL],
]);
for (const tag of [
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details',
  'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'legend',
  'li', 'main', 'menu', 'nav', 'ol', 'optgroup', 'option', 'p', 'pre', 'section', 'summary', 'table',
  'tbody', 'textarea', 'tfoot', 'thead', 'tr', 'ul',
]) {
  TAG_FLAGS.set(tag, BLOCK);
}

const SEP_NONE = 0;
const SEP_SPACE = 1;
const SEP_NEWLINE = 2;

const UNFOLLOWABLE_SCHEME = /^(?:javascript|mailto|tel|data):/i;
const URL_IGNORED_CHARS = /[\t\n\r]/g;

/**
 * False for hrefs that can never lead to a page: empty, fragment-only, and the
 * javascript:, mailto:, tel: and data: schemes. URL parsing drops tabs and
 * newlines anywhere, so "java\tscript:" counts as javascript: too.
 */
export function isFollowableHref(href: string): boolean {
  if (href === '' || href.charCodeAt(0) === 0x23) return false;
  let head = href.length > 24 ? href.slice(0, 24) : href;
  if (head.indexOf('\t') !== -1 || head.indexOf('\n') !== -1 || head.indexOf('\r') !== -1) {
    head = head.replace(URL_IGNORED_CHARS, '');
  }
  return !UNFOLLOWABLE_SCHEME.test(head);
}

const NOFOLLOW_TOKEN = /(?:^|\s)nofollow(?:\s|$)/i;
const RELATED_PAGE_RELS = new Set(['alternate', 'next', 'prev', 'previous']);
/** rel values that make a <link> point at a resource rather than a page. */
const RESOURCE_RELS = new Set(['stylesheet', 'icon', 'preload', 'prefetch', 'modulepreload', 'manifest']);

function relTokens(rel: string): string[] {
  return rel.toLowerCase().split(/[\t\n\f\r ]+/);
}

/** Path suffixes of the scripts that give a search index away, and where the index lies relative to the script. */
const SEARCH_INDEX_SCRIPTS: readonly { suffix: string; index: string }[] = [
  // Sphinx: <root>/_static/documentation_options.js, the index is <root>/searchindex.js.
  { suffix: '_static/documentation_options.js', index: '../searchindex.js' },
  // MkDocs: <root>/search/main.js, the index is <root>/search/search_index.json.
  { suffix: 'search/main.js', index: 'search_index.json' },
];

/**
 * The search index a <script src> reveals, resolved against base, or undefined. The
 * script's path (query and fragment ignored) must end in a known suffix at a '/' boundary.
 */
export function searchIndexOfScript(src: string, base: string): string | undefined {
  const script = URL.parse(src.trim(), base);
  if (script === null || (script.protocol !== 'http:' && script.protocol !== 'https:')) return undefined;
  const path = script.pathname;
  for (const { suffix, index } of SEARCH_INDEX_SCRIPTS) {
    if (path.endsWith(suffix) && path.charCodeAt(path.length - suffix.length - 1) === 0x2f) {
      script.search = '';
      script.hash = '';
      return new URL(index, script).href;
    }
  }
  return undefined;
}

/**
 * The base URL for resolving the page's relative links: the <base href> resolved
 * against the page URL when that gives an http(s) URL, else the page URL.
 */
export function effectiveBase(pageUrl: string, baseHref: string | undefined): string {
  if (baseHref === undefined || baseHref === '') return pageUrl;
  const resolved = URL.parse(baseHref, pageUrl);
  if (resolved !== null && (resolved.protocol === 'http:' || resolved.protocol === 'https:')) return resolved.href;
  return pageUrl;
}

const NEWLINES = /\n/g;

/**
 * The separator in the flattened text the helpers below work on: every word is
 * followed by exactly one, except the last, so native indexOf/lastIndexOf find words.
 */
const SPACE = 0x20;

/**
 * Up to `count` words of `flat` ending at `end`, dropping a word that `end` cuts
 * in two. A hand scan: it measured faster than repeated lastIndexOf calls here.
 */
function wordsBefore(flat: string, end: number, count: number): string {
  let e = end;
  if (e > 0 && e < flat.length && flat.charCodeAt(e) !== SPACE && flat.charCodeAt(e - 1) !== SPACE) {
    while (e > 0 && flat.charCodeAt(e - 1) !== SPACE) e--;
  }
  if (e > 0 && flat.charCodeAt(e - 1) === SPACE) e--;
  let s = e;
  let seen = 0;
  while (s > 0) {
    if (flat.charCodeAt(s - 1) === SPACE && ++seen === count) break;
    s--;
  }
  return flat.slice(s, e);
}

/** Up to `count` words of `flat` starting at `start`, dropping a word that `start` cuts in two. */
function wordsAfter(flat: string, start: number, count: number): string {
  const n = flat.length;
  let s = start;
  if (s > 0 && s < n && flat.charCodeAt(s) !== SPACE && flat.charCodeAt(s - 1) !== SPACE) {
    s = flat.indexOf(' ', s);
    if (s === -1) return '';
  }
  if (s < n && flat.charCodeAt(s) === SPACE) s++;
  if (s >= n) return '';
  let e = n;
  let pos = s;
  for (let w = 0; w < count; w++) {
    const sp = flat.indexOf(' ', pos);
    if (sp === -1) {
      e = n;
      break;
    }
    e = sp;
    pos = sp + 1;
  }
  return flat.slice(s, e);
}

/** The anchor text: the part of `flat` the link enclosed, cut at a word boundary past MAX_ANCHOR_CHARS. */
function anchorFromText(flat: string, start: number, end: number): string {
  let s = start;
  if (s < end && flat.charCodeAt(s) === SPACE) s++;
  let e = end;
  if (e - s > MAX_ANCHOR_CHARS) {
    e = flat.lastIndexOf(' ', s + MAX_ANCHOR_CHARS);
    if (e <= s) e = s + MAX_ANCHOR_CHARS;
  }
  return flat.slice(s, e);
}

function appendBounded(to: string, data: string, limit: number): string {
  return to.length + data.length <= limit ? to + data : to + data.slice(0, limit - to.length);
}

/**
 * Receives htmlparser2's events. The visible text is accumulated as pieces that
 * are already whitespace-collapsed, so that the final text is one join, and
 * links remember character offsets into it.
 */
class PageCollector implements BoundedHandler {
  readonly maxLinks: number;
  readonly maxTextChars: number;
  readonly agentToken: string;

  readonly pieces: string[] = [];
  textLength = 0;
  wordCount = 0;
  textTruncated = false;
  /** The separator owed before the next text; SEP_NONE means the next text continues the last word. */
  pendingSep = SEP_NONE;

  skipDepth = 0;
  hideDepth = 0;
  noLinksDepth = 0;
  svgDepth = 0;

  title = '';
  titleOpen = false;
  titleDone = false;

  readonly links: ExtractedLink[] = [];
  /** Text offset where each link starts, or -1 for links without context (<link>). */
  readonly starts: number[] = [];
  /** Text offset where each link ends. */
  readonly ends: number[] = [];
  /** 1 when the link's anchor is to be cut from the page text at the end. */
  readonly anchorInText: number[] = [];
  linksDropped = 0;

  /** The <a> whose end has not been seen, as an index into links, or -1. */
  openAnchor = -1;
  anchorHasText = false;
  hiddenAnchorText = '';
  anchorImgAlt = '';
  anchorTitle = '';

  baseHref: string | undefined;
  canonical: string | undefined;
  metaRefresh: MetaRefresh | undefined;
  lang: string | undefined;
  contentLanguage: string | undefined;
  readonly robots: RobotsDirectives = { noindex: false, nofollow: false };
  /** <script src> values as written, resolved once the base is known. */
  readonly scriptSrcs: string[] = [];
  readonly requisites = new Set<string>();
  scripts = 0;
  noscriptDepth = 0;
  noscriptText = '';
  /** The first app root while it is open: its tag, same-named elements opened inside, and the text and links when it opened. */
  appRoot: { name: string; nested: number; textAt: number; linksAt: number } | undefined;
  appRootSeen = false;
  emptyAppRoot = false;

  constructor(opts: ExtractOptions) {
    this.maxLinks = opts.maxLinks ?? DEFAULT_MAX_LINKS;
    this.maxTextChars = opts.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
    this.agentToken = (opts.agentToken ?? DEFAULT_AGENT_TOKEN).toLowerCase();
  }

  ontext(data: string): void {
    if (this.noscriptDepth > 0 && this.noscriptText.length < NOSCRIPT_CHARS) this.noscriptText = appendBounded(this.noscriptText, data, NOSCRIPT_CHARS);
    if (this.skipDepth > 0) return;
    if (this.titleOpen) {
      if (this.title.length < MAX_TITLE_CHARS) this.title = appendBounded(this.title, data, MAX_TITLE_CHARS);
      return;
    }
    // Past the text cap, anchors still get their text the slow way.
    if (this.hideDepth > 0 || this.textTruncated) {
      if (this.openAnchor !== -1 && this.hiddenAnchorText.length < MAX_ANCHOR_CHARS) {
        this.hiddenAnchorText = appendBounded(this.hiddenAnchorText, data, MAX_ANCHOR_CHARS);
      }
      return;
    }
    this.addText(data);
  }

  /** Splits data into runs of words separated by single spaces and appends them. */
  addText(data: string): void {
    const n = data.length;
    let i = 0;
    while (i < n) {
      if (isSpace(data.charCodeAt(i))) {
        if (this.pendingSep === SEP_NONE) this.pendingSep = SEP_SPACE;
        i++;
        while (i < n && isSpace(data.charCodeAt(i))) i++;
        continue;
      }
      const start = i;
      let words = 1;
      i++;
      for (;;) {
        while (i < n && !isSpace(data.charCodeAt(i))) i++;
        if (i + 1 < n && data.charCodeAt(i) === 0x20 && !isSpace(data.charCodeAt(i + 1))) {
          i += 2;
          words++;
          continue;
        }
        break;
      }
      this.appendRun(data, start, i, words);
      if (this.textTruncated) return;
    }
  }

  appendRun(data: string, start: number, end: number, words: number): void {
    const glued = this.pendingSep === SEP_NONE && this.textLength > 0;
    const sepLength = this.pendingSep !== SEP_NONE && this.textLength > 0 ? 1 : 0;
    if (this.textLength + sepLength + (end - start) > this.maxTextChars) {
      this.appendTruncated(data, start, sepLength);
      return;
    }
    if (sepLength === 0) {
      this.pieces.push(start === 0 && end === data.length ? data : data.slice(start, end));
    } else if (this.pendingSep === SEP_SPACE && start > 0 && data.charCodeAt(start - 1) === 0x20) {
      this.pieces.push(data.slice(start - 1, end));
    } else {
      this.pieces.push(this.pendingSep === SEP_NEWLINE ? '\n' : ' ');
      this.pieces.push(data.slice(start, end));
    }
    this.textLength += sepLength + (end - start);
    this.wordCount += glued ? words - 1 : words;
    this.pendingSep = SEP_NONE;
    if (this.openAnchor !== -1) this.anchorHasText = true;
  }

  /** Appends the whole words of a run that fit under maxTextChars, then stops the text. */
  appendTruncated(data: string, start: number, sepLength: number): void {
    this.textTruncated = true;
    const room = this.maxTextChars - this.textLength - sepLength;
    // A run glued to the previous word has no word boundary to cut at before its end: drop it whole.
    if (room <= 0 || (this.pendingSep === SEP_NONE && this.textLength > 0)) return;
    const cut = data.lastIndexOf(' ', start + room);
    if (cut <= start) return;
    let words = 1;
    for (let k = start; k < cut; k++) if (data.charCodeAt(k) === 0x20) words++;
    if (sepLength === 1) this.pieces.push(this.pendingSep === SEP_NEWLINE ? '\n' : ' ');
    this.pieces.push(data.slice(start, cut));
    this.textLength += sepLength + (cut - start);
    this.wordCount += words;
    if (this.openAnchor !== -1) this.anchorHasText = true;
  }

  breakWords(sep: number): void {
    if (sep > this.pendingSep) this.pendingSep = sep;
    if (this.openAnchor !== -1 && (this.hideDepth > 0 || this.textTruncated) && this.hiddenAnchorText.length < MAX_ANCHOR_CHARS) {
      this.hiddenAnchorText += ' ';
    }
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    const flags = TAG_FLAGS.get(name) ?? 0;
    if (this.appRoot !== undefined && name === this.appRoot.name) this.appRoot.nested++;
    else if (!this.appRootSeen && attribs.id !== undefined && APP_ROOT_IDS.has(attribs.id)) {
      this.appRootSeen = true;
      this.appRoot = { name, nested: 0, textAt: this.textLength, linksAt: this.links.length };
    }
    if (name === 'noscript') this.noscriptDepth++;
    if (flags !== 0 && this.skipDepth === 0) {
      if (flags & BLOCK) this.breakWords(SEP_NEWLINE);
      else if (flags & CELL) this.breakWords(SEP_SPACE);
    }
    switch (name) {
      case 'a':
        this.closeAnchor();
        if (this.noLinksDepth === 0) this.startAnchor(attribs);
        break;
      case 'area':
        if (this.noLinksDepth === 0) this.addStandaloneLink('area', attribs.href, attribs.rel, attribs.alt || attribs.title);
        break;
      case 'frame':
      case 'iframe':
        if (this.noLinksDepth === 0) this.addStandaloneLink(name, attribs.src, undefined, attribs.title);
        break;
      case 'img':
        if (this.openAnchor !== -1 && this.anchorImgAlt === '' && attribs.alt !== undefined) this.anchorImgAlt = attribs.alt;
        if (this.noLinksDepth === 0) this.addRequisite(attribs.src);
        break;
      case 'link':
        if (this.noLinksDepth === 0) this.onLinkElement(attribs);
        break;
      case 'base':
        if (this.baseHref === undefined && attribs.href !== undefined) this.baseHref = attribs.href.trim();
        break;
      case 'meta':
        this.onMeta(attribs);
        break;
      case 'script':
        this.scripts++;
        if (this.noLinksDepth === 0 && attribs.src !== undefined && this.scriptSrcs.length < MAX_SCRIPTS) this.scriptSrcs.push(attribs.src);
        break;
      case 'html': {
        const lang = (attribs.lang ?? attribs['xml:lang'])?.trim();
        if (this.lang === undefined && lang) this.lang = lang;
        break;
      }
      case 'title':
        if (!this.titleDone && this.svgDepth === 0 && this.skipDepth === 0) this.titleOpen = true;
        break;
      case 'svg':
        this.svgDepth++;
        break;
    }
    if (flags & SKIP) this.skipDepth++;
    if (flags & HIDE) this.hideDepth++;
    if (flags & NO_LINKS) this.noLinksDepth++;
  }

  onclosetag(name: string): void {
    const flags = TAG_FLAGS.get(name) ?? 0;
    if (name === 'noscript' && this.noscriptDepth > 0) this.noscriptDepth--;
    if (this.appRoot !== undefined && name === this.appRoot.name) {
      if (this.appRoot.nested > 0) this.appRoot.nested--;
      else {
        this.emptyAppRoot = this.textLength === this.appRoot.textAt && this.links.length === this.appRoot.linksAt;
        this.appRoot = undefined;
      }
    }
    if (flags !== 0) {
      if (flags & SKIP) this.skipDepth--;
      if (flags & HIDE) this.hideDepth--;
      if (flags & NO_LINKS) this.noLinksDepth--;
      if (this.skipDepth === 0) {
        if (flags & BLOCK) this.breakWords(SEP_NEWLINE);
        else if (flags & CELL) this.breakWords(SEP_SPACE);
      }
    }
    if (name === 'a') this.closeAnchor();
    else if (name === 'title' && this.titleOpen) {
      this.titleOpen = false;
      this.titleDone = true;
    } else if (name === 'svg') this.svgDepth--;
  }

  /**
   * The parser restarted past its depth bound (bounded-parse.ts): none of the elements open
   * now will be closed, so the page goes on as if outside all of them.
   */
  onrestart(): void {
    this.closeAnchor();
    this.skipDepth = 0;
    this.hideDepth = 0;
    this.noLinksDepth = 0;
    this.svgDepth = 0;
    this.noscriptDepth = 0;
    this.appRoot = undefined;
    if (this.titleOpen) {
      this.titleOpen = false;
      this.titleDone = true;
    }
  }

  /** Records a link, or counts it as dropped past maxLinks; null if not recorded. */
  addLink(tag: LinkTag, rawHref: string | undefined, rel: string | undefined, withContext: boolean): ExtractedLink | null {
    if (rawHref === undefined) return null;
    const href = rawHref.trim();
    if (!isFollowableHref(href)) return null;
    if (this.links.length >= this.maxLinks) {
      this.linksDropped++;
      return null;
    }
    const link: ExtractedLink = {
      href,
      anchor: '',
      contextBefore: '',
      contextAfter: '',
      nofollow: rel !== undefined && NOFOLLOW_TOKEN.test(rel),
      rel: rel ?? '',
      tag,
    };
    this.links.push(link);
    const at = withContext ? this.textLength : -1;
    this.starts.push(at);
    this.ends.push(at);
    this.anchorInText.push(0);
    return link;
  }

  startAnchor(attribs: Record<string, string>): void {
    if (this.addLink('a', attribs.href ?? attribs['xlink:href'], attribs.rel, true) === null) return;
    this.openAnchor = this.links.length - 1;
    this.anchorHasText = false;
    this.hiddenAnchorText = '';
    this.anchorImgAlt = '';
    this.anchorTitle = attribs.title ?? '';
  }

  closeAnchor(): void {
    const index = this.openAnchor;
    if (index === -1) return;
    this.openAnchor = -1;
    this.ends[index] = this.textLength;
    if (this.anchorHasText) {
      this.anchorInText[index] = 1;
    } else {
      (this.links[index] as ExtractedLink).anchor =
        collapseWhitespace(this.hiddenAnchorText) || collapseWhitespace(this.anchorImgAlt) || collapseWhitespace(this.anchorTitle);
    }
  }

  addStandaloneLink(tag: LinkTag, href: string | undefined, rel: string | undefined, label: string | undefined): void {
    const link = this.addLink(tag, href, rel, true);
    if (link !== null && label !== undefined) link.anchor = collapseWhitespace(label);
  }

  addRequisite(href: string | undefined): void {
    const trimmed = href?.trim();
    if (trimmed === undefined || trimmed === '' || trimmed.startsWith('data:') || this.requisites.size >= MAX_REQUISITES) return;
    this.requisites.add(trimmed);
  }

  onLinkElement(attribs: Record<string, string>): void {
    const rel = attribs.rel;
    const href = attribs.href;
    if (rel === undefined || href === undefined) return;
    const tokens = relTokens(rel);
    if (tokens.some((t) => REQUISITE_RELS.has(t))) this.addRequisite(href);
    if (tokens.includes('canonical')) {
      const trimmed = href.trim();
      if (this.canonical === undefined && trimmed !== '') this.canonical = trimmed;
      return;
    }
    if (!tokens.some((t) => RELATED_PAGE_RELS.has(t)) || tokens.some((t) => RESOURCE_RELS.has(t))) return;
    this.addLink('link', href, rel, false);
  }

  onMeta(attribs: Record<string, string>): void {
    const content = attribs.content;
    if (content === undefined) return;
    const name = attribs.name?.trim().toLowerCase();
    if (name === 'robots' || name === this.agentToken) {
      const found = parseRobotsDirectives(content, this.agentToken);
      if (found.noindex) this.robots.noindex = true;
      if (found.nofollow) this.robots.nofollow = true;
      return;
    }
    const httpEquiv = attribs['http-equiv']?.trim().toLowerCase();
    if (httpEquiv === 'refresh') {
      if (this.metaRefresh === undefined) this.metaRefresh = parseMetaRefresh(content);
    } else if (httpEquiv === 'content-language' && this.contentLanguage === undefined) {
      const first = content.split(',')[0]?.trim();
      if (first) this.contentLanguage = first;
    }
  }

  siteResources(base: string): SiteResourceRef[] {
    const found = new Set<string>();
    for (const src of this.scriptSrcs) {
      if (found.size === MAX_SITE_RESOURCES) break;
      const index = searchIndexOfScript(src, base);
      if (index !== undefined) found.add(index);
    }
    return [...found].map((href) => ({ kind: 'search-index', href }));
  }

  finish(pageUrl: string): ExtractedPage {
    this.closeAnchor();
    const text = this.pieces.join('');
    // Anchors and contexts are cut from a copy with spaces only: one pass over the text is far cheaper than one per link.
    const flat = text.indexOf('\n') === -1 ? text : text.replace(NEWLINES, ' ');
    for (let i = 0; i < this.links.length; i++) {
      const start = this.starts[i] as number;
      if (start < 0) continue;
      const end = this.ends[i] as number;
      const link = this.links[i] as ExtractedLink;
      if (this.anchorInText[i] === 1) link.anchor = anchorFromText(flat, start, end);
      link.contextBefore = wordsBefore(flat, start, CONTEXT_WORDS);
      link.contextAfter = wordsAfter(flat, end, CONTEXT_WORDS);
    }
    const resolvedBase = effectiveBase(pageUrl, this.baseHref);
    const page: ExtractedPage = {
      title: collapseWhitespace(this.title),
      text,
      textTruncated: this.textTruncated,
      wordCount: this.wordCount,
      links: this.links,
      linksDropped: this.linksDropped,
      resolvedBase,
      robots: this.robots,
      siteResources: this.siteResources(resolvedBase),
      requisites: [...this.requisites],
      scriptSigns: { scripts: this.scripts, emptyAppRoot: this.emptyAppRoot || (this.appRoot !== undefined && this.textLength === this.appRoot.textAt && this.links.length === this.appRoot.linksAt), noscriptText: collapseWhitespace(this.noscriptText) },
    };
    if (this.baseHref !== undefined) page.baseHref = this.baseHref;
    if (this.metaRefresh !== undefined) page.metaRefresh = this.metaRefresh;
    if (this.canonical !== undefined) page.canonical = this.canonical;
    const lang = this.lang ?? this.contentLanguage;
    if (lang !== undefined) page.lang = lang;
    return page;
  }
}

export function extractHtml(html: string, pageUrl: string, opts: ExtractOptions = {}): ExtractedPage {
  const collector = new PageCollector(opts);
  parseBounded(html, collector);
  return collector.finish(pageUrl);
}
