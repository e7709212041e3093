/**
 * Focused-ordering benchmark (`npm run bench:focus`): on real sites served over loopback
 * (python3.11-doc and git-doc), each topic is crawled once per strategy with Cho-style hot
 * predicates, and PST (share of the topic's hot pages fetched) and harvest rate are read
 * at budgets of 5, 10, 20 and 40% of the site. Ground truth: the same predicate applied to
 * every page of a full crawl of the site.
 *
 * The topics are samples, chosen before tuning and never tuned for: see bench/README.md.
 *
 *   npm run bench:focus [-- --strategies bfs,focused --topics xml,submodules --json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createHotRule } from '../crawler/relevance/hot.ts';
import { termCounts } from '../crawler/relevance/text.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { startSites, type ServedSite } from './support/nginx-sites.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const FORAGER = join(REPO_ROOT, 'bin', 'forager.js');
const BUDGETS = [0.05, 0.1, 0.2, 0.4] as const;
const ALL_STRATEGIES = ['bfs', 'random', 'backlink', 'pagerank', 'fpr', 'cho', 'focused'];

interface Topic {
  key: string;
  site: 'python' | 'git';
  query: string;
  hot: string;
}

/** Driving queries and Cho-style hot predicates (title term, or a term at least N times in the body). */
const TOPICS: readonly Topic[] = [
  { key: 'xml', site: 'python', query: 'parsing and processing XML documents', hot: 'title:xml|body>=10:xml' },
  { key: 'email', site: 'python', query: 'email messages and MIME', hot: 'title:email|title:mime' },
  { key: 'sockets', site: 'python', query: 'sockets and network servers', hot: 'title:socket|body>=8:socket' },
  { key: 'threads', site: 'python', query: 'threads, locks and concurrent execution', hot: 'title:thread|title:concurrent|body>=8:lock' },
  { key: 'http', site: 'python', query: 'HTTP clients, servers and URLs', hot: 'title:http|title:url|body>=10:http' },
  { key: 'submodules', site: 'git', query: 'working with submodules', hot: 'title:submodule|body>=5:submodule' },
  { key: 'rebase', site: 'git', query: 'rebasing and rewriting history', hot: 'title:rebase|body>=6:rebase' },
  { key: 'diff', site: 'git', query: 'showing diffs between commits', hot: 'title:diff|body>=15:diff' },
];

const SITE_ROOTS = { python: '/usr/share/doc/python3.11/html', git: '/usr/share/doc/git/html' } as const;

interface CrawlReport {
  fetchOrder: string[];
  elapsedMs: number;
  orderingMs: number;
}

async function crawl(dbPath: string, seed: string, query: string, hot: string, strategy: string, maxPages: number): Promise<CrawlReport> {
  const args = [
    ...shebangNodeFlags(FORAGER), FORAGER, 'crawl', '--db', dbPath, '--query', query, '--seed', seed, '--hot', hot,
    '--strategy', strategy, '--max-pages', String(maxPages), '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '8', '--json',
  ];
  const { json } = await runJsonChild(process.execPath, args, { cwd: REPO_ROOT, timeoutMs: 600_000, label: `forager ${strategy}` });
  const db = new Database(dbPath, { readonly: true });
  const fetchOrder = db.prepare("SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.status BETWEEN 200 AND 299 ORDER BY p.seq").pluck().all() as string[];
  db.close();
  return { fetchOrder, elapsedMs: Number(json.elapsedMs), orderingMs: Number(json.orderingMs ?? 0) };
}

/** The hot set of a topic: its predicate applied to every page of a full crawl. */
function hotSet(fullDb: string, spec: string): Set<string> {
  const rule = createHotRule(spec, undefined);
  const db = new Database(fullDb, { readonly: true });
  const rows = db.prepare("SELECT u.url, coalesce(p.title, '') AS title, coalesce(p.text, '') AS text FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.text IS NOT NULL").all() as { url: string; title: string; text: string }[];
  db.close();
  const hot = new Set<string>();
  for (const row of rows) {
    if (rule.isHot({ title: row.title, text: row.text, relevance: 0, titleTerms: termCounts(row.title), bodyTerms: termCounts(row.text) })) hot.add(row.url);
  }
  return hot;
}

function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

const { values } = parseArgs({ options: { strategies: { type: 'string' }, topics: { type: 'string' }, json: { type: 'boolean' } } });
const strategies = values.strategies?.split(',') ?? ALL_STRATEGIES;
const topics = values.topics === undefined ? TOPICS : TOPICS.filter((t) => values.topics?.split(',').includes(t.key));
const log = (line: string): void => void (values.json ? process.stderr : process.stdout).write(`${line}\n`);

const tmp = mkdtempSync(join(tmpdir(), 'forager-focus-'));
const served = await startSites([
  { name: 'python', root: SITE_ROOTS.python },
  { name: 'git', root: SITE_ROOTS.git },
]);
try {
  const siteOf = (key: string): ServedSite => served.sites.find((s) => s.name === key) as ServedSite;
  const full: Record<string, { db: string; pages: number }> = {};
  for (const key of ['python', 'git'] as const) {
    const db = join(tmp, `${key}-full.db`);
    const report = await crawl(db, siteOf(key).seed, 'full site', 'title:zzzz', 'bfs', 100_000);
    full[key] = { db, pages: report.fetchOrder.length };
    log(`${key}: full crawl ${report.fetchOrder.length} pages`);
  }
  const results: Record<string, Record<string, { pst: number[]; harvest: number[] }>> = {};
  let orderingMs = 0;
  let crawlMs = 0;
  for (const topic of topics) {
    const site = full[topic.site] as { db: string; pages: number };
    const hot = hotSet(site.db, topic.hot);
    log(`\n${topic.key} (${topic.site}): "${topic.query}"  hot = ${topic.hot}  → ${hot.size} hot pages of ${site.pages}`);
    for (const strategy of strategies) {
      const db = join(tmp, `${topic.key}-${strategy}.db`);
      const report = await crawl(db, siteOf(topic.site).seed, topic.query, topic.hot, strategy, Math.ceil(site.pages * 0.4));
      orderingMs += report.orderingMs;
      crawlMs += report.elapsedMs;
      const pst: number[] = [];
      const harvest: number[] = [];
      for (const budget of BUDGETS) {
        const k = Math.max(1, Math.round(site.pages * budget));
        const fetched = report.fetchOrder.slice(0, k);
        const found = fetched.filter((u) => hot.has(u)).length;
        pst.push(found / hot.size);
        harvest.push(found / fetched.length);
      }
      ((results[strategy] ??= {})[topic.key] = { pst, harvest });
      log(`  ${strategy.padEnd(9)} PST ${pst.map((p) => p.toFixed(2)).join(' ')}   harvest ${harvest.map((h) => h.toFixed(2)).join(' ')}`);
      rmSync(db, { force: true });
    }
  }
  const meanPst = (s: string, b: number): number => mean(Object.values(results[s] ?? {}).map((r) => r.pst[b] as number));
  const meanHarvest = (s: string, b: number): number => mean(Object.values(results[s] ?? {}).map((r) => r.harvest[b] as number));
  log(`\nmean over ${topics.length} topics            PST at ${BUDGETS.map((b) => `${b * 100}%`).join(' / ')}      harvest rate`);
  for (const s of strategies) {
    log(`  ${s.padEnd(9)} ${BUDGETS.map((_, b) => meanPst(s, b).toFixed(3)).join('  ')}    ${BUDGETS.map((_, b) => meanHarvest(s, b).toFixed(3)).join('  ')}`);
  }
  const summary: Record<string, unknown> = { topics: topics.map((t) => t.key), budgets: BUDGETS, results, orderingShare: orderingMs / crawlMs };
  if (strategies.includes('focused')) {
    const at10 = meanPst('focused', 1);
    const checks: [string, boolean][] = [[`focused mean PST at 10% ≥ 0.8 (measured ${at10.toFixed(3)})`, at10 >= 0.8]];
    if (strategies.includes('bfs')) {
      const ratio = at10 / Math.max(meanPst('bfs', 1), 1e-9);
      checks.push([`focused ≥ 4 × bfs at 10% (measured ${ratio.toFixed(2)}×)`, ratio >= 4]);
    }
    for (const peer of ['cho', 'bfs', 'random'].filter((p) => strategies.includes(p))) {
      const beats = BUDGETS.every((_, b) => meanPst('focused', b) > meanPst(peer, b));
      checks.push([`focused beats ${peer} at every budget`, beats]);
    }
    checks.push([`ordering overhead < 20% of crawl time (measured ${((orderingMs / crawlMs) * 100).toFixed(1)}%)`, orderingMs / crawlMs < 0.2]);
    log('\nTargets');
    for (const [text, ok] of checks) log(`  ${ok ? 'PASS' : 'MISS'}  ${text}`);
    summary.checks = Object.fromEntries(checks);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  await served.stop();
  rmSync(tmp, { recursive: true, force: true });
}
