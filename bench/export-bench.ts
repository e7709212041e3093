/**
 * WARC and WACZ export benchmark. Builds a synthetic collection once (default 100,000
 * pages of ~20 KB HTML, bench/support/synthetic-collection.ts) in a temporary folder,
 * then exports it R times per format, each export in a child process of its own (so its
 * peak RSS is the export's alone; see support/peak-rss.ts for why it is read from /proc)
 * running with the node flags of the `forager` CLI's shebang, as `forager export` runs.
 * Reports medians.
 * Targets: WARC ≥ 500 pages/s, peak RSS < 300 MB.
 *
 * The peer: no other WARC writer is available here (Python's warcio is not installed and
 * PyPI is out of reach), so the peer reads the exported WARC back with warcio.js's own CDX
 * indexer (bench/peers/warcio-index.ts), beside Forager's verifyWacz reading the WACZ.
 *
 *   node bench/export-bench.ts [--pages 100000] [--runs 3] [--formats warc,wacz] [--json]
 *   node bench/export-bench.ts --child warc|wacz|verify --db FILE --out FILE   (one measured run)
 *   node bench/export-bench.ts --smoke   (300 pages, one run per format; see support/smoke.ts)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { exportWacz } from '../crawler/export/wacz/export.ts';
import { verifyWacz } from '../crawler/export/wacz/verify.ts';
import { exportWarc } from '../crawler/export/warc/export.ts';
import { openCollection } from '../crawler/store/database.ts';
import { ForagerError } from '../crawler/errors.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { peakRssMB } from './support/peak-rss.ts';
import { reportSmoke } from './support/smoke.ts';
import { buildSyntheticCollection } from './support/synthetic-collection.ts';

const { values } = parseArgs({
  options: {
    pages: { type: 'string' },
    runs: { type: 'string' },
    formats: { type: 'string' },
    json: { type: 'boolean' },
    child: { type: 'string' },
    db: { type: 'string' },
    out: { type: 'string' },
    smoke: { type: 'boolean' },
  },
});
const SMOKE = values.smoke === true;

const ROOT = new URL('..', import.meta.url).pathname;
const TARGET_PAGES_PER_SECOND = 500;
const TARGET_RSS_MB = 300;

async function child(kind: string, db: string, out: string): Promise<void> {
  const started = performance.now();
  if (kind === 'verify') {
    const check = await verifyWacz(out);
    const seconds = (performance.now() - started) / 1000;
    console.log(JSON.stringify({ ok: check.ok, errors: check.errors.slice(0, 3), records: check.records, seconds, recordsPerSecond: check.records / seconds, peakRssMB: peakRssMB() }));
    return;
  }
  const connection = openCollection(db, { create: false, readonly: true });
  const summary = kind === 'warc' ? await exportWarc(connection, {}, out) : await exportWacz(connection, {}, out);
  const seconds = (performance.now() - started) / 1000;
  connection.close();
  console.log(JSON.stringify({ pages: summary.pages, records: summary.records, bytes: summary.bytes, seconds, pagesPerSecond: summary.pages / seconds, peakRssMB: peakRssMB() }));
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Row {
  what: string;
  rate: string;
  peakRssMB: number;
  note: string;
}

async function main(): Promise<void> {
  const pages = Number(values.pages ?? (SMOKE ? 300 : 100_000));
  const runs = Number(values.runs ?? (SMOKE ? 1 : 3));
  const formats = (values.formats ?? 'warc,wacz').split(',');
  const flags = shebangNodeFlags(join(ROOT, 'bin/forager.js'));
  const dir = mkdtempSync(join(tmpdir(), 'forager-export-bench-'));
  const log = (line: string): void => {
    if (values.json === true) console.error(line);
    else console.log(line);
  };
  try {
    const db = join(dir, 'synthetic.forager');
    const built = performance.now();
    buildSyntheticCollection(db, pages);
    log(`built a ${pages}-page collection in ${((performance.now() - built) / 1000).toFixed(1)} s; exports run with node ${flags.join(' ') || '(no flags)'}`);
    const rows: Row[] = [];
    const summary: Record<string, unknown> = { pages, runs, nodeFlags: flags };
    for (const format of formats) {
      const out = join(dir, `export.${format === 'warc' ? 'warc.gz' : 'wacz'}`);
      const results: Record<string, unknown>[] = [];
      for (let run = 0; run < runs; run++) {
        rmSync(out, { force: true });
        const result = await runJsonChild(process.execPath, [...flags, 'bench/export-bench.ts', '--child', format, '--db', db, '--out', out], {
          cwd: ROOT,
          timeoutMs: 30 * 60_000,
          label: `export ${format}`,
        });
        results.push(result.json);
        log(`  ${format} run ${run + 1}: ${Number(result.json.pagesPerSecond).toFixed(0)} pages/s, peak RSS ${Number(result.json.peakRssMB).toFixed(0)} MB, ${(Number(result.json.bytes) / 1e6).toFixed(0)} MB written`);
      }
      const rate = median(results.map((r) => Number(r.pagesPerSecond)));
      const rss = median(results.map((r) => Number(r.peakRssMB)));
      summary[format] = { medianPagesPerSecond: rate, medianPeakRssMB: rss, bytes: results[0]?.bytes };
      const verdict = format === 'warc' ? ` (targets ≥ ${TARGET_PAGES_PER_SECOND} pages/s: ${rate >= TARGET_PAGES_PER_SECOND ? 'PASS' : 'MISS'}, < ${TARGET_RSS_MB} MB: ${rss < TARGET_RSS_MB ? 'PASS' : 'MISS'})` : ` (< ${TARGET_RSS_MB} MB: ${rss < TARGET_RSS_MB ? 'PASS' : 'MISS'})`;
      rows.push({ what: `Forager export ${format}`, rate: `${rate.toFixed(0)} pages/s`, peakRssMB: rss, note: `median of ${runs}${verdict}` });
      if (format === 'wacz') {
        const verify = await runJsonChild(process.execPath, [...flags, 'bench/export-bench.ts', '--child', 'verify', '--db', db, '--out', out], { cwd: ROOT, timeoutMs: 30 * 60_000, label: 'verify wacz' });
        summary.verify = verify.json;
        rows.push({ what: 'Forager verifyWacz (reads all)', rate: `${Number(verify.json.recordsPerSecond).toFixed(0)} records/s`, peakRssMB: Number(verify.json.peakRssMB), note: verify.json.ok === true ? 'ok' : `NOT OK: ${JSON.stringify(verify.json.errors)}` });
      }
      if (format === 'warc') {
        const peer = await runJsonChild(process.execPath, ['bench/peers/warcio-index.ts', '--warc', out], { cwd: ROOT, timeoutMs: 30 * 60_000, label: 'warcio.js index' });
        summary.peer = peer.json;
        rows.push({ what: `peer: ${String(peer.json.tool)}`, rate: `${Number(peer.json.recordsPerSecond).toFixed(0)} records/s`, peakRssMB: Number(peer.json.peakRssMB), note: `reads the exported WARC back (${String(peer.json.records)} records)` });
      }
    }
    if (values.json === true) {
      console.log(JSON.stringify(summary));
    } else {
      const table = [['', 'rate', 'peak RSS', ''], ...rows.map((r) => [r.what, r.rate, `${r.peakRssMB.toFixed(0)} MB`, r.note])];
      const widths = [0, 1, 2].map((c) => Math.max(...table.map((row) => (row[c] as string).length)));
      for (const row of table) console.log(row.map((cell, c) => (c < 3 ? cell.padEnd(widths[c] as number) : cell)).join('  '));
    }
    if (SMOKE) reportExportSmoke(summary, pages);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Figures = Record<string, unknown>;

/** Every format exported every page, the WACZ verified, and the peer read back every record the WARC holds. */
function reportExportSmoke(summary: Figures, pages: number): void {
  const warc = summary.warc as Figures | undefined;
  const wacz = summary.wacz as Figures | undefined;
  const verify = summary.verify as Figures | undefined;
  const peer = summary.peer as Figures | undefined;
  if (verify?.ok !== true) throw new ForagerError('BENCH_CHILD', 'the exported WACZ was not verified, or verifyWacz did not accept it (a smoke run exports both formats)', { verify });
  if (typeof peer?.records !== 'number' || peer.records < pages) throw new ForagerError('BENCH_CHILD', `the warcio.js indexer read fewer records than the ${pages} pages exported`, { peer });
  reportSmoke({
    benchmark: 'bench:export',
    peer: String(peer.tool),
    figures: {
      warcPagesPerSecond: warc?.medianPagesPerSecond,
      warcPeakRssMB: warc?.medianPeakRssMB,
      waczPagesPerSecond: wacz?.medianPagesPerSecond,
      waczPeakRssMB: wacz?.medianPeakRssMB,
      verifyRecordsPerSecond: verify.recordsPerSecond,
      peerRecords: peer.records,
      peerRecordsPerSecond: peer.recordsPerSecond,
    },
  });
}

if (values.child !== undefined) await child(values.child, values.db ?? '', values.out ?? '');
else await main();
