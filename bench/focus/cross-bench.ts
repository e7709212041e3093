/**
 * The cross-site measurements of bench:focus: for each cross-site topic, lab replays over
 * the sites' stored crawl together (no hosts, as every replay) and real crawls seeded on
 * every site at once with a per-host delay, where hosts compete for turns. PST counts every
 * stored response of the sites as a fetch; T is the HTML pages of all the sites together.
 * Beside PST, each site's share of the real crawl's first 10% of fetches against its share
 * of the hot pages: a crawl that follows the topic spends its turns where the hot pages are.
 */
import type { ServedSite } from '../support/nginx-sites.ts';
import { siteOfName, sitePathOf, type CrossTopic } from './cross-site.ts';
import { f2, mean } from './figures.ts';
import { realCrawl } from './real-crawls.ts';
import { pst, replay, truthOf, type SiteReplay } from './replay.ts';

export const CROSS_BUDGETS = [0.05, 0.1, 0.2] as const;
/** The per-host wait of the real cross-site crawls: above zero, so hosts compete for turns. */
export const CROSS_DELAY_MS = 20;

export interface CrossResult {
  topic: CrossTopic;
  hot: number;
  htmlPages: number;
  ceiling: number[];
  /** Strategy → PST per budget, lab replays over the sites together. */
  lab: Record<string, number[]>;
  /** Strategy → PST per budget, real crawls (the mean over the runs). */
  real: Record<string, number[]>;
  /** Strategy → max − min of the real runs' PST@10%. */
  realSpread: Record<string, number>;
  /** Site → share of the hot pages. */
  hotShare: Record<string, number>;
  /** Strategy (`name` for a real crawl, `name (lab)` for a replay) → site → share of the first 10% of fetches. */
  fetchShare: Record<string, Record<string, number>>;
  /** Strategy → seconds a real crawl took (the mean over the runs). */
  realSeconds: Record<string, number>;
  /**
   * The smallest worst gap any crawl could reach: a site cannot take more of the first 10% of
   * fetches than it has pages, so a small site holding most hot pages caps what is possible.
   */
  feasibleGap: number;
}

/**
 * The least g such that shares within g of `target` (each at most its site's `capacity`, all
 * summing to 1) exist: a bisection on g, since the reachable sums only widen as g grows.
 */
export function feasibleGap(target: Record<string, number>, capacity: Record<string, number>): number {
  const sites = Object.keys(target);
  const possible = (g: number): boolean => {
    let low = 0;
    let high = 0;
    for (const s of sites) {
      const cap = Math.min(1, capacity[s] ?? 0);
      const lo = Math.max(0, (target[s] ?? 0) - g);
      if (lo > cap) return false;
      low += lo;
      high += Math.min(cap, (target[s] ?? 0) + g);
    }
    return low <= 1 && high >= 1;
  };
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (possible(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

export interface CrossOptions {
  replaySite: SiteReplay;
  siteOfOrigin: ReadonlyMap<string, string>;
  served: readonly ServedSite[];
  labStrategies: readonly string[];
  realStrategies: readonly string[];
  /** Real crawls per strategy: they reorder with timing, so the tables show their mean and spread. */
  realRuns: number;
  dir: string;
}

function shares(names: readonly string[], sites: readonly string[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(sites.map((s) => [s, 0]));
  for (const name of names) {
    const site = siteOfName(name);
    if (site in out) out[site] = (out[site] as number) + 1 / Math.max(1, names.length);
  }
  return out;
}

export async function measureCrossTopic(topic: CrossTopic, o: CrossOptions): Promise<CrossResult> {
  const site = o.replaySite;
  const truth = truthOf(site, topic.predicate);
  const hot = truth.reduce((a, b) => a + b, 0);
  const fetches = CROSS_BUDGETS.map((b) => Math.max(1, Math.round(b * site.htmlPages)));
  const maxFetches = fetches[fetches.length - 1] as number;
  const siteNames = o.served.map((s) => s.name);
  const hotNames: string[] = [];
  truth.forEach((t, v) => {
    if (t === 1) hotNames.push(sitePathOf(site.graph.urls[v] as string, o.siteOfOrigin));
  });
  const result: CrossResult = {
    topic,
    hot,
    htmlPages: site.htmlPages,
    ceiling: fetches.map((k) => Math.min(1, k / Math.max(1, hot))),
    lab: {},
    real: {},
    realSpread: {},
    hotShare: shares(hotNames, siteNames),
    fetchShare: {},
    realSeconds: {},
    feasibleGap: 0,
  };
  const pagesPerSite: Record<string, number> = Object.fromEntries(siteNames.map((s) => [s, 0]));
  for (let v = 0; v < site.graph.nodeCount; v++) {
    if (site.graph.stored[v] !== 1) continue;
    const name = siteOfName(sitePathOf(site.graph.urls[v] as string, o.siteOfOrigin));
    if (name in pagesPerSite) pagesPerSite[name] = (pagesPerSite[name] as number) + 1;
  }
  result.feasibleGap = feasibleGap(result.hotShare, Object.fromEntries(Object.entries(pagesPerSite).map(([s, n]) => [s, n / (fetches[1] as number)])));
  for (const strategy of o.labStrategies) {
    const order = replay(site, topic, strategy, 'default', maxFetches, truth);
    result.lab[strategy] = fetches.map((k) => pst(order, truth, k));
    result.fetchShare[`${strategy} (lab)`] = shares(Array.from(order.subarray(0, fetches[1]), (v) => sitePathOf(site.graph.urls[v] as string, o.siteOfOrigin)), siteNames);
  }
  const hotSet = new Set(hotNames);
  const servedOrigins = new Map(o.served.map((s) => [s.origin, s.name]));
  for (const strategy of o.realStrategies) {
    const runs: { pst: number[]; share: Record<string, number>; seconds: number }[] = [];
    for (let run = 0; run < o.realRuns; run++) {
      const crawl = await realCrawl({ dir: o.dir, seeds: o.served.map((s) => s.seed), topic, strategy, mode: 'default', maxPages: maxFetches, delayMs: CROSS_DELAY_MS });
      const names = crawl.urls.map((url) => sitePathOf(url, servedOrigins));
      runs.push({
        pst: fetches.map((k) => names.slice(0, k).filter((n) => hotSet.has(n)).length / Math.max(1, hot)),
        share: shares(names.slice(0, fetches[1]), siteNames),
        seconds: crawl.elapsedMs / 1000,
      });
    }
    result.real[strategy] = fetches.map((_, b) => mean(runs.map((r) => r.pst[b] as number)));
    const at10 = runs.map((r) => r.pst[1] as number);
    result.realSpread[strategy] = Math.max(...at10) - Math.min(...at10);
    result.fetchShare[strategy] = Object.fromEntries(siteNames.map((s) => [s, mean(runs.map((r) => r.share[s] ?? 0))]));
    result.realSeconds[strategy] = mean(runs.map((r) => r.seconds));
  }
  return result;
}

const pct = (x: number | undefined): string => (x === undefined ? '  -' : `${Math.round(x * 100)}`.padStart(3));

/** The cross-site tables: PST per topic (real and lab), then each site's share of fetches against its share of hot pages. */
export function crossTables(results: readonly CrossResult[], strategies: readonly string[], log: (line?: string) => void): void {
  const columns = (r: CrossResult): [string, number[] | undefined][] => [
    ...Object.keys(r.real).map((s): [string, number[] | undefined] => [`${s} (real)`, r.real[s]]),
    ...strategies.map((s): [string, number[] | undefined] => [`${s} (lab)`, r.lab[s]]),
  ];
  const first = results[0];
  if (first === undefined) return;
  const heads = columns(first).map(([name]) => name);
  log(`\nCross-site topics: PST at ${CROSS_BUDGETS.map((b) => `${b * 100}%`).join(' / ')} of all the sites' pages`);
  log(`${'topic'.padEnd(16)} ${'hot/pages'.padStart(10)}  ${'ceiling'.padEnd(16)} ${heads.map((h) => h.padEnd(18)).join(' ')}`);
  for (const r of results) {
    log(`${`${r.topic.key} ${r.topic.half === 'check' ? '(c)' : '(t)'}`.padEnd(16)} ${`${r.hot}/${r.htmlPages}`.padStart(10)}  ${r.ceiling.map(f2).join(' ').padEnd(16)} ${columns(r).map(([, v]) => (v ?? []).map(f2).join(' ').padEnd(18)).join(' ')}`);
  }
  log(`${'MEAN'.padEnd(28)}  ${CROSS_BUDGETS.map((_, b) => f2(mean(results.map((r) => r.ceiling[b] as number)))).join(' ').padEnd(16)} ${heads.map((_, c) => CROSS_BUDGETS.map((__, b) => f2(mean(results.map((r) => columns(r)[c]?.[1]?.[b] ?? Number.NaN)))).join(' ').padEnd(18)).join(' ')}`);
  for (const strategy of Object.keys(first.realSpread)) {
    log(`  spread of the ${strategy} real runs at 10% (max − min): ${results.map((r) => `${r.topic.key} ${f2(r.realSpread[strategy])}`).join(', ')}`);
  }
  for (const strategy of Object.keys(first.fetchShare)) {
    log(`\nEach site's share (%) of the first 10% of fetches, ${strategy.endsWith('(lab)') ? strategy : `${strategy} real crawl`}, against its share of the hot pages`);
    const sites = Object.keys(first.hotShare);
    log(`${'topic'.padEnd(16)} ${sites.map((s) => s.padStart(15)).join('')}  worst gap (least possible)`);
    for (const r of results) {
      const fetch = r.fetchShare[strategy] ?? {};
      log(`${r.topic.key.padEnd(16)} ${sites.map((s) => `${pct(fetch[s])} / ${pct(r.hotShare[s])}`.padStart(15)).join('')}  ${pct(worstShareGap(r, strategy))} (${pct(r.feasibleGap)})`);
    }
  }
}

/** The worst gap, in share points, between a site's share of the first 10% of fetches and its share of the hot pages. */
export function worstShareGap(r: CrossResult, strategy: string): number {
  const fetch = r.fetchShare[strategy] ?? {};
  return Math.max(...Object.keys(r.hotShare).map((s) => Math.abs((fetch[s] ?? 0) - (r.hotShare[s] ?? 0))));
}

/** The issue's targets on the cross-site topics: focused real crawls against the naive replay, and shares within 10 points. */
export function crossChecks(results: readonly CrossResult[]): [string, boolean][] {
  const out: [string, boolean][] = [];
  const withBoth = results.filter((r) => r.real.focused !== undefined && r.lab.naive !== undefined);
  if (withBoth.length > 0) {
    const focused = mean(withBoth.map((r) => r.real.focused?.[1] as number));
    const naive = mean(withBoth.map((r) => r.lab.naive?.[1] as number));
    out.push([`cross-site: focused real mean PST@10% >= naive replay + 0.15 (${f2(focused)} vs ${f2(naive)})`, focused >= naive + 0.15]);
    const behind = withBoth.filter((r) => (r.real.focused?.[1] as number) <= (r.lab.naive?.[1] as number)).map((r) => r.topic.key);
    out.push([`cross-site: focused real above the naive replay on every topic${behind.length > 0 ? ` (not on ${behind.join(', ')})` : ''}`, behind.length === 0]);
  }
  const shared = results.filter((r) => r.fetchShare.focused !== undefined);
  if (shared.length > 0) {
    const off = shared.filter((r) => worstShareGap(r, 'focused') > 0.1).map((r) => `${r.topic.key} ${Math.round(worstShareGap(r, 'focused') * 100)}`);
    out.push([`cross-site: every site's share of the first 10% of fetches within 10 points of its hot share${off.length > 0 ? ` (not on ${off.join(', ')})` : ''}`, off.length === 0]);
    // Where the sites' sizes make 10 points impossible, within 10 points of the least gap possible.
    const offFeasible = shared.filter((r) => worstShareGap(r, 'focused') > Math.max(0.1, r.feasibleGap + 0.1)).map((r) => r.topic.key);
    out.push([`cross-site: ... or within 10 points of the least gap the sites' sizes allow${offFeasible.length > 0 ? ` (not on ${offFeasible.join(', ')})` : ''}`, offFeasible.length === 0]);
  }
  return out;
}
