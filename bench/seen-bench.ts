/**
 * Seen-test and frontier benchmark: pushes synthetic discovered URLs through the same
 * admission path the engine uses (canonicalise, fingerprint, CLOCK cache, unique index,
 * frontier insert), one transaction per simulated page, and reports URLs/s and the
 * database bytes per stored URL. Targets: ≥ 50,000 URLs/s and < 200 bytes per URL.
 * The synthetic link graph has the two properties the seen test depends on: ~30% of a
 * page's links repeat recent ones (Broder et al.), and most links stay on the page's host.
 *
 *   npm run bench:seen [-- --urls 1000000 --runs 3]
 *   npm run bench:seen -- --smoke   (20,000 URLs, one run, the peer capped at 5 s; see support/smoke.ts)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UrlAdmission } from '../crawler/engine/url-admission.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../crawler/protocol/settings.ts';
import { openCollection } from '../crawler/store/database.ts';
import { HostStore } from '../crawler/store/host-store.ts';
import { UrlStore } from '../crawler/store/url-store.ts';
import { createScope } from '../crawler/url/scope.ts';
import { runJsonChild } from './support/child-run.ts';
import { reportSmoke } from './support/smoke.ts';
import { discoveredUrls } from './support/synthetic-links.ts';

const { values } = parseArgs({
  options: { urls: { type: 'string' }, runs: { type: 'string' }, json: { type: 'boolean' }, 'peer-seconds': { type: 'string' }, smoke: { type: 'boolean' } },
});
const SMOKE = values.smoke === true;
const DISTINCT = Number(values.urls ?? (SMOKE ? 20_000 : 1_000_000));
const RUNS = Number(values.runs ?? (SMOKE ? 1 : 3));
interface RunResult {
  admitted: number;
  distinct: number;
  seconds: number;
  urlsPerSecond: number;
  bytesPerUrl: number;
  cacheHitRate: number;
}

function runOnce(): RunResult {
  const dir = mkdtempSync(join(tmpdir(), 'forager-seen-'));
  const path = join(dir, 'seen.db');
  try {
    const db = openCollection(path, { create: true });
    const settings: CrawlSettings = { ...DEFAULT_SETTINGS, query: 'bench', seeds: ['https://www.site0.example/'], scope: 'any' };
    const urls = new UrlStore(db);
    const admission = new UrlAdmission(
      settings,
      { urls, hosts: new HostStore(db) },
      createScope('any', settings.seeds),
      { robotsBlockReason: () => null, linked: () => undefined },
      65_536,
    );
    const admitPage = db.transaction((page: string[], parentId: number) => {
      for (const url of page) admission.admit(url, url, { depth: 1, parentId, redirects: 0, anchor: '', context: '', isSeed: false });
    });
    let admitted = 0;
    let pageNo = 0;
    const started = process.hrtime.bigint();
    for (const page of discoveredUrls(DISTINCT)) {
      admitPage(page, ++pageNo);
      admitted += page.length;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const distinct = db.prepare('SELECT count(*) FROM urls').pluck().get() as number;
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = statSync(path).size;
    return { admitted, distinct, seconds, urlsPerSecond: admitted / seconds, bytesPerUrl: bytes / distinct, cacheHitRate: admission.cache.hitRate };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const results: RunResult[] = [];
for (let r = 0; r < RUNS; r++) {
  const res = runOnce();
  results.push(res);
  if (!values.json) {
    console.log(`run ${r + 1}: ${res.admitted} discovered (${res.distinct} distinct) in ${res.seconds.toFixed(2)} s = ${Math.round(res.urlsPerSecond)} URLs/s, ${res.bytesPerUrl.toFixed(1)} B/URL, cache hit ${(res.cacheHitRate * 100).toFixed(1)}%`);
  }
}
// The peer: Crawlee's in-memory RequestQueue over the same discoveries, capped in time since it slows as it grows.
const peerSeconds = Number(values['peer-seconds'] ?? (SMOKE ? 5 : 120));
const peer = await runJsonChild(
  process.execPath,
  ['bench/peers/crawlee-queue.ts', '--urls', String(DISTINCT), '--max-seconds', String(peerSeconds)],
  { cwd: new URL('..', import.meta.url).pathname, timeoutMs: (peerSeconds + 120) * 1000, label: 'crawlee-queue' },
);
const peerRate = Number(peer.json.urlsPerSecond);
const summary = {
  runs: RUNS,
  distinctUrls: results[0]?.distinct ?? 0,
  discoveredUrls: results[0]?.admitted ?? 0,
  medianUrlsPerSecond: Math.round(median(results.map((r) => r.urlsPerSecond))),
  medianBytesPerUrl: Number(median(results.map((r) => r.bytesPerUrl)).toFixed(1)),
  medianCacheHitRate: Number(median(results.map((r) => r.cacheHitRate)).toFixed(3)),
  peer: peer.json,
  ratioToPeer: 0,
};
summary.ratioToPeer = Number((summary.medianUrlsPerSecond / peerRate).toFixed(2));
if (values.json) {
  console.log(JSON.stringify(summary));
} else {
  console.log(`median: ${summary.medianUrlsPerSecond} URLs/s (target ≥ 50,000: ${summary.medianUrlsPerSecond >= 50_000 ? 'PASS' : 'MISS'}), ` +
    `${summary.medianBytesPerUrl} bytes/URL (target < 200: ${summary.medianBytesPerUrl < 200 ? 'PASS' : 'MISS'})`);
  console.log(`peer, Crawlee RequestQueue (memory): ${Math.round(peerRate)} URLs/s over ${String(peer.json.admitted)} discoveries` +
    `${peer.json.truncated ? ` (stopped at the ${peerSeconds} s cap)` : ''}, peak RSS ${Number(peer.json.peakRssMB).toFixed(0)} MB; ` +
    `Forager / Crawlee = ${summary.ratioToPeer}×`);
}
if (SMOKE) {
  reportSmoke({
    benchmark: 'bench:seen',
    peer: 'Crawlee RequestQueue',
    figures: {
      distinctUrls: summary.distinctUrls,
      urlsPerSecond: summary.medianUrlsPerSecond,
      bytesPerUrl: summary.medianBytesPerUrl,
      peerAdmitted: peer.json.admitted,
      peerUrlsPerSecond: peerRate,
      ratio: summary.ratioToPeer,
    },
  });
}
