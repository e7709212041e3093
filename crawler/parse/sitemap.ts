/**
 * Sitemaps (sitemaps.org protocol 0.9): a <urlset> lists pages (<url><loc>, optional
 * <lastmod>), a <sitemapindex> lists further sitemaps (<sitemap><loc>). One streaming
 * pass with htmlparser2 in XML mode, no DOM. The parser is lenient, so broken XML gives
 * the entries read before the damage, and a note says it was broken.
 */
import { Parser } from 'htmlparser2';
import { joinNotes, MAX_RESOURCE_ENTRIES, type ResourceContents, type ResourceEntry } from './resource-entries.ts';

/** A <loc> longer than this is no URL anyone crawls; its text is not kept whole. */
const MAX_FIELD_CHARS = 8192;

/**
 * W3C datetime (https://www.w3.org/TR/NOTE-datetime): YYYY, YYYY-MM, YYYY-MM-DD, or a date
 * with hh:mm, optional seconds and fraction, and a time zone designator.
 */
const W3C_DATETIME = /^\d{4}(?:-\d{2}(?:-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** A lastmod in epoch ms, or undefined when it is not a W3C datetime. A time without a zone is read as UTC. */
export function parseW3cDatetime(value: string): number | undefined {
  const s = value.trim();
  if (!W3C_DATETIME.test(s)) return undefined;
  const hasTime = s.includes('T');
  const zoned = !hasTime || /(?:Z|[+-]\d{2}:\d{2})$/.test(s) ? s : `${s}Z`;
  // Date.parse keeps milliseconds only: a longer fraction is cut to three digits first.
  const ms = Date.parse(zoned.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? undefined : ms;
}

function localName(name: string): string {
  const colon = name.lastIndexOf(':');
  return (colon === -1 ? name : name.slice(colon + 1)).toLowerCase();
}

type Root = 'urlset' | 'sitemapindex' | 'other';

/** Receives htmlparser2's events; depth 1 is the root element, 2 an entry, 3 an entry's field. */
class SitemapCollector {
  depth = 0;
  root: Root | undefined;
  /** The entry being read (inside <url> or <sitemap>), if any. */
  loc: string | undefined;
  lastmod = '';
  /** The field whose text is being read, if any. */
  field: 'loc' | 'lastmod' | undefined;
  text = '';
  readonly entries: ResourceEntry[] = [];
  dropped = 0;
  /** An element was left open at the end of the input (a cut-off or broken file). */
  broken = false;

  onopentag(name: string): void {
    this.depth++;
    const local = localName(name);
    if (this.depth === 1) {
      this.root ??= local === 'urlset' || local === 'sitemapindex' ? local : 'other';
    } else if (this.depth === 2) {
      if ((this.root === 'urlset' && local === 'url') || (this.root === 'sitemapindex' && local === 'sitemap')) {
        this.loc = '';
        this.lastmod = '';
      }
    } else if (this.depth === 3 && this.loc !== undefined && (local === 'loc' || local === 'lastmod')) {
      this.field = local;
      this.text = '';
    }
  }

  ontext(data: string): void {
    if (this.field !== undefined && this.text.length < MAX_FIELD_CHARS) this.text += data.slice(0, MAX_FIELD_CHARS - this.text.length);
  }

  onclosetag(_name: string, isImplied: boolean): void {
    if (isImplied) this.broken = true;
    if (this.depth === 3 && this.field !== undefined) {
      // A field cut off by the end of the input is not trusted.
      if (!isImplied) {
        if (this.field === 'loc') this.loc = this.text.trim();
        else this.lastmod = this.text;
      }
      this.field = undefined;
    } else if (this.depth === 2 && this.loc !== undefined) {
      this.#endEntry();
    }
    this.depth--;
  }

  #endEntry(): void {
    const loc = this.loc as string;
    this.loc = undefined;
    if (loc === '') return;
    if (this.entries.length >= MAX_RESOURCE_ENTRIES) {
      this.dropped++;
      return;
    }
    if (this.root === 'sitemapindex') {
      this.entries.push({ href: loc, anchor: '', kind: 'sitemap' });
      return;
    }
    const lastModified = parseW3cDatetime(this.lastmod);
    this.entries.push(lastModified === undefined ? { href: loc, anchor: '' } : { href: loc, anchor: '', hint: { source: 'sitemap', lastModified } });
  }
}

/** The entries of a sitemap or sitemap index. Never throws. */
export function readSitemap(xml: string): ResourceContents {
  const collector = new SitemapCollector();
  const parser = new Parser(collector, { xmlMode: true });
  parser.end(xml);
  if (collector.root === undefined || collector.root === 'other') return { note: 'sitemap:not-a-sitemap', entries: [] };
  return {
    note: joinNotes(collector.broken ? 'sitemap:malformed' : null, collector.dropped > 0 ? `entries-dropped:${collector.dropped}` : null),
    entries: collector.entries,
  };
}
