import type { LabGraph } from './graph.ts';

export interface SyntheticGraphOptions {
  /** Stored pages. */
  pages: number;
  seed?: number;
  /** Pages per site (host). */
  sitePages?: number;
  /** Share of sites that are topical. */
  topicalSites?: number;
  /** Share of a topical site's pages that are hot; and elsewhere. */
  hotInTopical?: number;
  hotElsewhere?: number;
  minOutDegree?: number;
  maxOutDegree?: number;
  /** Share of links to URLs that have no stored page. */
  unstoredLinks?: number;
  /** Share of links that stay on the page's site. */
  sameSiteLinks?: number;
  /** Share of a topical site's off-site links that go to another topical site. */
  topicalAffinity?: number;
  seeds?: number;
}

/** Query words the synthetic topical regions use in anchors and URLs. */
export const SYNTHETIC_QUERY = 'solar energy';

const DEFAULTS: Required<Omit<SyntheticGraphOptions, 'pages'>> = {
  seed: 0x5eed,
  sitePages: 500,
  topicalSites: 0.05,
  hotInTopical: 0.6,
  hotElsewhere: 0.005,
  minOutDegree: 20,
  maxOutDegree: 60,
  unstoredLinks: 0.05,
  sameSiteLinks: 0.7,
  topicalAffinity: 0.6,
  seeds: 10,
};

const TOPICAL_TEXTS = 128;
const TEXTS = 1024;
const TOPIC_TERMS = ['solar', 'energi', 'panel', 'photovolta', 'inverter', 'batteri', 'grid', 'roof', 'watt', 'sun'];
const OTHER_TERMS = Array.from({ length: 200 }, (_, i) => `word${i}`);
const TERMS_PER_PAGE = 3;

/**
 * A deterministic web-like graph for the lab benchmark: sites of `sitePages` pages, most
 * links on-site, off-site links biased to home pages (hubs), and a few topical sites,
 * rich in hot pages, that link to each other more often than chance, with anchors and
 * URLs that sometimes carry the query's words. Built straight into typed arrays.
 */
export function syntheticLabGraph(options: SyntheticGraphOptions): LabGraph {
  const o = { ...DEFAULTS, ...options };
  let x = o.seed >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
  const pages = o.pages;
  const sites = Math.ceil(pages / o.sitePages);
  const unstored = Math.max(1, Math.floor(pages / 10));
  const nodeCount = pages + unstored;

  const topical = new Uint8Array(sites);
  const topicalList: number[] = [];
  for (let s = 0; s < sites; s++) {
    if (next() < o.topicalSites) {
      topical[s] = 1;
      topicalList.push(s);
    }
  }
  if (topicalList.length === 0) {
    topical[sites - 1] = 1;
    topicalList.push(sites - 1);
  }
  const siteSize = (s: number): number => Math.min(o.sitePages, pages - s * o.sitePages);

  const stored = new Uint8Array(nodeCount);
  stored.fill(1, 0, pages);
  const hot = new Uint8Array(nodeCount);
  const relevance = new Float32Array(nodeCount);
  const urls = new Array<string>(nodeCount);
  const linkStart = new Int32Array(nodeCount);
  const linkEnd = new Int32Array(nodeCount);
  const degree = new Int32Array(pages);
  let capacity = 0;
  for (let v = 0; v < pages; v++) {
    degree[v] = o.minOutDegree + Math.floor(next() * (o.maxOutDegree - o.minOutDegree + 1));
    capacity += degree[v] as number;
  }
  const linkDst = new Int32Array(capacity);
  const linkText = new Uint16Array(capacity);
  const lastSource = new Int32Array(nodeCount).fill(-1);
  const termStart = new Int32Array(nodeCount);
  const termEnd = new Int32Array(nodeCount);
  const termIds = new Int32Array(pages * TERMS_PER_PAGE);
  let hotCount = 0;
  let links = 0;

  for (let v = 0; v < pages; v++) {
    const s = Math.floor(v / o.sitePages);
    const isTopicalSite = topical[s] === 1;
    const isHot = next() < (isTopicalSite ? o.hotInTopical : o.hotElsewhere);
    hot[v] = isHot ? 1 : 0;
    hotCount += hot[v] as number;
    relevance[v] = isHot ? 0.6 + 0.4 * next() : 0.55 * next();
    const topicalPath = isTopicalSite && next() < 0.3;
    // join() makes one flat string; a template literal keeps a rope of its parts, twice the memory.
    urls[v] = ['https://site', s, '.example/', topicalPath ? 'solar-power/' : 'section/', 'page', v - s * o.sitePages].join('');
    termStart[v] = v * TERMS_PER_PAGE;
    termEnd[v] = (v + 1) * TERMS_PER_PAGE;
    for (let t = 0; t < TERMS_PER_PAGE; t++) {
      termIds[v * TERMS_PER_PAGE + t] = isHot ? Math.floor(next() * TOPIC_TERMS.length) : TOPIC_TERMS.length + Math.floor(next() * OTHER_TERMS.length);
    }

    linkStart[v] = links;
    const base = s * o.sitePages;
    const size = siteSize(s);
    for (let i = degree[v] as number; i > 0; i--) {
      const r = next();
      let dst: number;
      let toTopical = false;
      if (r < o.unstoredLinks) {
        dst = pages + Math.floor(next() * unstored);
      } else if (r < o.unstoredLinks + o.sameSiteLinks) {
        dst = base + Math.floor(next() * size);
        toTopical = isTopicalSite;
      } else {
        const other = isTopicalSite && next() < o.topicalAffinity ? (topicalList[Math.floor(next() * topicalList.length)] as number) : Math.floor(next() * sites);
        dst = next() < 0.3 ? other * o.sitePages : other * o.sitePages + Math.floor(next() * siteSize(other));
        toTopical = topical[other] === 1;
      }
      if (dst === v || lastSource[dst] === v) continue;
      lastSource[dst] = v;
      linkDst[links] = dst;
      linkText[links] = toTopical && next() < 0.5 ? Math.floor(next() * TOPICAL_TEXTS) : TOPICAL_TEXTS + Math.floor(next() * (TEXTS - TOPICAL_TEXTS));
      links++;
    }
    linkEnd[v] = links;
  }
  for (let u = 0; u < unstored; u++) urls[pages + u] = ['https://elsewhere', u, '.example/'].join('');

  const anchors = new Array<string>(TEXTS);
  const contexts = new Array<string>(TEXTS);
  for (let t = 0; t < TEXTS; t++) {
    anchors[t] = t < TOPICAL_TEXTS ? `solar panels guide ${t}` : `read more ${t}`;
    contexts[t] = t < TOPICAL_TEXTS ? `installing photovoltaic energy systems part ${t}` : `news and other things number ${t}`;
  }
  const seeds = new Int32Array(Math.min(o.seeds, sites));
  for (let i = 0; i < seeds.length; i++) seeds[i] = Math.floor(next() * sites) * o.sitePages;

  return {
    nodeCount,
    urls,
    sourceIds: null,
    seeds,
    stored,
    hot,
    relevance,
    pageCount: pages,
    hotCount,
    linkStart,
    linkEnd,
    linkDst: links === capacity ? linkDst : linkDst.subarray(0, links),
    linkText: links === capacity ? linkText : linkText.subarray(0, links),
    anchors,
    contexts,
    termStart,
    termEnd,
    termIds,
    termPool: [...TOPIC_TERMS, ...OTHER_TERMS],
    // Pages only: no sitemaps or search indexes.
    kinds: new Uint8Array(nodeCount),
    resourceRoots: new Int32Array(0),
    resourceRootDepths: new Int32Array(0),
    hints: new Map(),
  };
}
