/**
 * Fingerprints of the lab's replay orders: for each focus-bench topic and strategy, a
 * SHA-256 of the replayed fetch order written as the pages' paths. Two builds whose crawl,
 * ordering and judging code behave the same print the same lines; run it on each and diff
 * the output to show a refactor changed no order. Paths, not node ids or origins, are
 * hashed, because ids follow the stored crawl's fetch order and ports change per run.
 *
 *   npx node bench/focus/order-hashes.ts [--sites python,git] [--strategies bfs,naive,focused] [--json]
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startSites, type ServedSite } from '../support/nginx-sites.ts';
import { fullCrawl } from './full-crawls.ts';
import { loadSiteReplay, replay, truthOf, type SiteReplay } from './replay.ts';
import { BENCH_SITES, missingPackages } from './sites.ts';
import { TOPICS, type Topic } from './topics.ts';

const { values } = parseArgs({
  options: {
    sites: { type: 'string' },
    strategies: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const wanted = values.sites?.split(',');
const sites = BENCH_SITES.filter((s) => wanted === undefined || wanted.includes(s.key));
const strategies = (values.strategies ?? 'bfs,naive,focused').split(',');
const missing = missingPackages(sites);
if (missing.length > 0) {
  process.stderr.write(`order-hashes: install the sites' packages first: apt-get install -y ${missing.join(' ')}\n`);
  process.exit(2);
}

function pathOfNode(site: SiteReplay, node: number): string {
  const url = new URL(site.graph.urls[node] as string);
  return `${url.pathname}${url.search}`;
}

function orderHash(site: SiteReplay, topic: Topic, strategy: string): string {
  const order = replay(site, topic, strategy, 'default', site.graph.nodeCount, truthOf(site, topic.predicate));
  const hash = createHash('sha256');
  for (const node of order) hash.update(pathOfNode(site, node)).update('\n');
  return `${hash.digest('hex').slice(0, 16)} (${order.length} fetches)`;
}

const served = await startSites(sites.map((s) => ({ name: s.key, root: s.root(), entry: s.entry })));
const rows: Record<string, Record<string, string>> = {};
try {
  for (const site of sites) {
    const servedSite = served.sites.find((s) => s.name === site.key) as ServedSite;
    const stored = await fullCrawl(site.key, site.packages, [servedSite]);
    const replaySite = loadSiteReplay(site.key, stored.db);
    for (const topic of TOPICS.filter((t) => t.site === site.key)) {
      const row: Record<string, string> = {};
      for (const strategy of strategies) row[strategy] = orderHash(replaySite, topic, strategy);
      rows[topic.key] = row;
      if (values.json !== true) process.stdout.write(`${topic.key.padEnd(16)} ${strategies.map((s) => `${s} ${row[s]}`).join('  ')}\n`);
    }
  }
} finally {
  await served.stop();
}
if (values.json === true) process.stdout.write(`${JSON.stringify(rows, null, 1)}\n`);
