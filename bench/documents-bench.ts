/**
 * `npm run bench:documents` (issue 36): reading PDFs, against poppler's pdftotext (the peer).
 *
 * The reading part: real PDFs from Debian's documentation packages are read by Forager's
 * reader (ResponseReader, so the document pool's worker with its caps, the analysis whole:
 * text, metadata, links, terms, the stored body), in a child process of its own started as a
 * crawler process is (its V8 flags and malloc settings; its peak RSS is the reader's), one
 * document after another; then by `pdftotext -q FILE -`, one process per document, in the
 * same run. For a document whose reading stopped at the page cap, the
 * peer reads the same pages (-l).
 *
 * Agreement of the two texts, per document: both are NFKC-normalised and case-folded, and cut
 * into words (maximal runs of Unicode letters and digits); with A and B the two multisets of
 * words, agreement = Σ_w min(A(w), B(w)) / max(|A|, |B|): the share of the larger text's words
 * that the other has too, so that words missing on either side count against it.
 *
 * The crawl part: an HTML site on loopback where one link in ten is a PDF (real PDFs of the
 * corpus of at most 60 pages, in turn) is crawled whole by `forager crawl`, reading documents
 * and with `--documents none`, alternating, three rounds each: pages/s and peak RSS, medians.
 *
 * Targets: agreement ≥ 97% over at least 20 PDFs (the median and the worst are reported);
 * the crawl reading documents ≥ 0.8× the pages/s of the one that does not, under 400 MB;
 * peak RSS of the reader < 400 MB. Speeds (pages/s, documents/s) are reported beside the
 * peer's, as a ratio; Forager's reader does more than pdftotext does (link annotations, the
 * analysis), so the ratio is what that costs.
 *
 *   npm run bench:documents -- [--json]
 *   npm run bench:documents -- --smoke   (two of R's manuals; see support/smoke.ts)
 *   node bench/documents-bench.ts --child reader --files LIST.json --out DIR   (the measured reader)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ForagerError } from '../crawler/errors.ts';
import { missingMallocSettings } from '../crawler/memory/process-tuning.ts';
import type { ResponseAnalysis } from '../crawler/parse/analyse-response.ts';
import { ResponseReader } from '../crawler/parse/response-reader.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { peakRssMB } from './support/peak-rss.ts';
import { runBenchMain } from './support/run-main.ts';
import { reportSmoke } from './support/smoke.ts';
import { pdfsOfSite, startDocumentWeb } from './documents/document-web.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean' },
    smoke: { type: 'boolean' },
    child: { type: 'string' },
    files: { type: 'string' },
    out: { type: 'string' },
  },
});
const SMOKE = values.smoke === true;
const ROOT = new URL('..', import.meta.url).pathname;
const PDFTOTEXT = '/usr/bin/pdftotext';
const TARGET_AGREEMENT = 0.97;
const TARGET_DOCUMENTS = 20;
const TARGET_RSS_MB = 400;

/** The corpus: each PDF with the Debian package that installs it. */
const CORPUS: readonly { pkg: string; path: string }[] = [
  ...['R-FAQ', 'R-admin', 'R-data', 'R-exts', 'R-intro', 'R-ints', 'R-lang', 'refman'].map((name) => ({ pkg: 'r-doc-pdf', path: `/usr/share/R/doc/manual/${name}.pdf` })),
  { pkg: 'gnuplot-doc', path: '/usr/share/doc/gnuplot/gnuplot.pdf' },
  ...['octave', 'liboctave', 'refcard-a4', 'refcard-legal', 'refcard-letter'].map((name) => ({ pkg: 'octave-doc', path: `/usr/share/doc/octave/${name}.pdf` })),
  ...['glpk', 'gmpl', 'gmpl_es', 'gmpl_pt-BR', 'graphs', 'cnfsat'].map((name) => ({ pkg: 'glpk-doc', path: `/usr/share/doc/glpk-doc/${name}.pdf` })),
  { pkg: 'camlidl-doc', path: '/usr/share/doc/camlidl/camlidl-1.04.doc.pdf' },
  { pkg: 'freefem-doc', path: '/usr/share/doc/freefem-doc/freefem.pdf' },
  { pkg: 'libtasn1-doc', path: '/usr/share/doc/libtasn1-doc/libtasn1.pdf' },
  { pkg: 'shared-mime-info', path: '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf' },
  { pkg: 'sqlite3-doc', path: '/usr/share/doc/sqlite3/copyright-release.pdf' },
];
const SMOKE_CORPUS = new Set(['R-FAQ.pdf', 'R-data.pdf']);

/** What the reader child reports of one document. */
interface ReaderResult {
  path: string;
  seconds: number;
  pagesRead: number;
  pageCount: number;
  note: string | null;
}

/** The reader: every file through one ResponseReader, sequentially; each text to DIR/N.txt. */
async function readerChild(files: string[], out: string): Promise<void> {
  const reader = new ResponseReader({ parseWorkers: 0, documentWorkers: 1 });
  const read = (path: string, index: number): Promise<ResponseAnalysis> =>
    reader.analyse({
      url: `http://docs.example/${index}.pdf`,
      status: 200,
      contentType: 'application/pdf',
      xRobotsTag: undefined,
      body: readFileSync(path),
      agentToken: 'forager',
      maxLinks: 10_000,
      kind: 'page',
      maxDecodedBytes: 32 * 1024 * 1024,
      documents: ['pdf'],
    });
  const results: ReaderResult[] = [];
  try {
    // The document worker starts at the first PDF, as in a crawl, where it starts once: not timed.
    await read(files[0] as string, -1);
    for (const [index, path] of files.entries()) {
      const begun = performance.now();
      const analysis = await read(path, index);
      results.push({ path, seconds: (performance.now() - begun) / 1000, pagesRead: analysis.document?.pagesRead ?? 0, pageCount: analysis.document?.pageCount ?? 0, note: analysis.note });
      writeFileSync(join(out, `${index}.txt`), analysis.page?.text ?? '');
    }
  } finally {
    await reader.close();
  }
  console.log(JSON.stringify({ results, peakRssMB: peakRssMB() }));
}

/** Words for the agreement: NFKC, case-folded, maximal runs of letters and digits, counted. */
function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [word] of text.normalize('NFKC').toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/** Σ_w min(A(w), B(w)) / max(|A|, |B|); 1 for two empty texts. */
function wordAgreement(a: Map<string, number>, b: Map<string, number>): number {
  let shared = 0;
  let sizeA = 0;
  let sizeB = 0;
  for (const [word, count] of a) {
    sizeA += count;
    shared += Math.min(count, b.get(word) ?? 0);
  }
  for (const count of b.values()) sizeB += count;
  return sizeA === 0 && sizeB === 0 ? 1 : shared / Math.max(sizeA, sizeB);
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The corpus present here; missing packages (or pdftotext) are named and the bench exits 2, as the others do. */
function corpus(): string[] {
  const wanted = SMOKE ? CORPUS.filter((entry) => SMOKE_CORPUS.has(entry.path.split('/').pop() as string)) : CORPUS;
  const missing = new Set(wanted.filter((entry) => !existsSync(entry.path)).map((entry) => entry.pkg));
  if (!existsSync(PDFTOTEXT)) missing.add('poppler-utils');
  if (missing.size > 0) {
    process.stderr.write(`bench:documents needs: apt-get install -y --no-install-recommends ${[...missing].join(' ')}\n`);
    process.exit(2);
  }
  return wanted.map((entry) => realpathSync(entry.path));
}

interface DocumentRow {
  name: string;
  pages: number;
  agreement: number;
  foragerSeconds: number;
  peerSeconds: number;
  note: string | null;
}

/** The reading part: agreement, speed against pdftotext, the reader's peak RSS. */
async function readingPart(files: string[], dir: string): Promise<Record<string, unknown>> {
  const list = join(dir, 'files.json');
  writeFileSync(list, JSON.stringify(files));
  // The reader runs as in a crawler process: its V8 flags, and its malloc settings (read only when a process starts).
  const flags = shebangNodeFlags(join(ROOT, 'bin/forager.js'));
  Object.assign(process.env, missingMallocSettings(process.env));
  const reader = await runJsonChild(process.execPath, [...flags, 'bench/documents-bench.ts', '--child', 'reader', '--files', list, '--out', dir], { cwd: ROOT, timeoutMs: 60 * 60_000, label: 'Forager reader' });
  const results = reader.json.results as ReaderResult[];
  const rows: DocumentRow[] = [];
  let peerSeconds = 0;
  for (const [index, result] of results.entries()) {
    const lastPage = result.pagesRead < result.pageCount ? ['-l', String(result.pagesRead)] : [];
    const begun = performance.now();
    const peerText = execFileSync(PDFTOTEXT, ['-q', ...lastPage, result.path, '-'], { maxBuffer: 1 << 30 }).toString('utf8');
    const seconds = (performance.now() - begun) / 1000;
    peerSeconds += seconds;
    const agreement = wordAgreement(wordCounts(readFileSync(join(dir, `${index}.txt`), 'utf8')), wordCounts(peerText));
    rows.push({ name: result.path.split('/').pop() as string, pages: result.pagesRead, agreement, foragerSeconds: result.seconds, peerSeconds: seconds, note: result.note });
  }
  const pages = rows.reduce((sum, row) => sum + row.pages, 0);
  const foragerSeconds = rows.reduce((sum, row) => sum + row.foragerSeconds, 0);
  const agreements = rows.map((row) => row.agreement);
  const worst = rows.reduce((a, b) => (b.agreement < a.agreement ? b : a));
  return {
    rows,
    documents: rows.length,
    pages,
    medianAgreement: median(agreements),
    worstAgreement: worst.agreement,
    worstDocument: worst.name,
    atTarget: agreements.filter((a) => a >= TARGET_AGREEMENT).length,
    foragerPagesPerSecond: pages / foragerSeconds,
    foragerDocumentsPerSecond: rows.length / foragerSeconds,
    peerPagesPerSecond: pages / peerSeconds,
    peerDocumentsPerSecond: rows.length / peerSeconds,
    readerPeakRssMB: Number(reader.json.peakRssMB),
  };
}

/** PDFs a crawl meets: the corpus's documents of at most this many pages (a manual of hundreds is rarer). */
const CRAWL_PDF_MAX_PAGES = 60;
const CRAWL_ROUNDS = SMOKE ? 1 : 3;
const CRAWL_SITE_PAGES = SMOKE ? 60 : 600;
const TARGET_CRAWL_RATIO = 0.8;

function pageCountOf(path: string): number {
  return Number(/Pages:\s+(\d+)/.exec(execFileSync('/usr/bin/pdfinfo', [path], { encoding: 'utf8' }))?.[1] ?? Number.POSITIVE_INFINITY);
}

/** One `forager crawl` of the web, with the documents setting given; its JSON stats. */
async function crawlOnce(origin: string, documents: string, dir: string, round: number): Promise<{ pagesPerSecond: number; peakRssMB: number; fetched: number; documents: number }> {
  const bin = join(ROOT, 'bin/forager.js');
  const db = join(dir, `crawl-${documents.replace(',', '-')}-${round}.forager`);
  const args = [
    ...shebangNodeFlags(bin), bin, 'crawl', '--db', db, '--query', 'write-ahead log checkpoint recovery', '--seed', `${origin}/p/0.html`,
    '--max-pages', String(CRAWL_SITE_PAGES * 2 + 10), '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '8', '--allow-private',
    '--render', 'never', '--requisites', 'none', '--documents', documents, '--json',
  ];
  const { json } = await runJsonChild(process.execPath, args, { cwd: ROOT, timeoutMs: 30 * 60_000, label: `forager crawl --documents ${documents}` });
  rmSync(db, { force: true });
  return { pagesPerSecond: Number(json.pagesPerSecond), peakRssMB: Number(json.peakRssBytes) / (1024 * 1024), fetched: Number(json.fetched), documents: Number(json.documents) };
}

/**
 * The crawl part: the same HTML site, one link in ten a PDF, crawled whole reading documents
 * and with `--documents none` (PDFs recorded from their headers), alternating, CRAWL_ROUNDS
 * times each; medians.
 */
async function crawlPart(files: string[], dir: string, readerSeconds: ReadonlyMap<string, number>): Promise<Record<string, unknown>> {
  const served = files.filter((path) => pageCountOf(path) <= CRAWL_PDF_MAX_PAGES);
  const pdfs = served.map((path) => readFileSync(path));
  if (pdfs.length === 0) throw new ForagerError('BENCH_CHILD', `no PDF of at most ${CRAWL_PDF_MAX_PAGES} pages in the corpus`, {});
  const web = await startDocumentWeb(CRAWL_SITE_PAGES, pdfs);
  const reading: Awaited<ReturnType<typeof crawlOnce>>[] = [];
  const none: Awaited<ReturnType<typeof crawlOnce>>[] = [];
  try {
    for (let round = 0; round < CRAWL_ROUNDS; round++) {
      // Alternating which goes first, so that neither always has the warmer machine.
      if (round % 2 === 0) {
        reading.push(await crawlOnce(web.origin, 'pdf,text', dir, round));
        none.push(await crawlOnce(web.origin, 'none', dir, round));
      } else {
        none.push(await crawlOnce(web.origin, 'none', dir, round));
        reading.push(await crawlOnce(web.origin, 'pdf,text', dir, round));
      }
    }
  } finally {
    await web.close();
  }
  const readingRate = median(reading.map((r) => r.pagesPerSecond));
  const noneRate = median(none.map((r) => r.pagesPerSecond));
  // The ceiling: reading the site's PDFs alone (the reader's seconds for each, from the reading
  // part) against the whole crawl without them. Even overlapped perfectly with the crawl, the
  // crawl that reads them takes at least as long as the longer of the two.
  const readingSeconds = pdfsOfSite(CRAWL_SITE_PAGES, served.length).reduce((sum, i) => sum + (readerSeconds.get(served[i] as string) ?? 0), 0);
  const noneSeconds = (none[0]?.fetched ?? 0) / noneRate;
  return {
    readerSecondsForSitePdfs: readingSeconds,
    ceilingRatio: noneSeconds / Math.max(noneSeconds, readingSeconds),
    sitePages: CRAWL_SITE_PAGES,
    pdfsServed: pdfs.length,
    rounds: CRAWL_ROUNDS,
    fetched: reading[0]?.fetched ?? 0,
    documentsRead: reading[0]?.documents ?? 0,
    readingPagesPerSecond: readingRate,
    nonePagesPerSecond: noneRate,
    ratio: readingRate / noneRate,
    readingPeakRssMB: Math.max(...reading.map((r) => r.peakRssMB)),
    nonePeakRssMB: Math.max(...none.map((r) => r.peakRssMB)),
  };
}

function printCrawl(crawl: Record<string, unknown>): void {
  const ratio = Number(crawl.ratio);
  const rss = Number(crawl.readingPeakRssMB);
  console.log('');
  console.log(`crawl of ${String(crawl.sitePages)} HTML pages, one URL in ten a PDF (${String(crawl.pdfsServed)} real PDFs of ≤ ${CRAWL_PDF_MAX_PAGES} pages in turn), medians of ${String(crawl.rounds)} alternating rounds:`);
  console.log(`  reading documents: ${Number(crawl.readingPagesPerSecond).toFixed(1)} pages/s (${String(crawl.documentsRead)} documents read of ${String(crawl.fetched)} fetched), peak RSS ${rss.toFixed(0)} MB`);
  console.log(`  --documents none:  ${Number(crawl.nonePagesPerSecond).toFixed(1)} pages/s, peak RSS ${Number(crawl.nonePeakRssMB).toFixed(0)} MB`);
  console.log(`  ratio ${ratio.toFixed(2)} (target ≥ ${TARGET_CRAWL_RATIO}: ${ratio >= TARGET_CRAWL_RATIO ? 'PASS' : 'MISS'}); peak RSS target < ${TARGET_RSS_MB} MB: ${rss < TARGET_RSS_MB ? 'PASS' : 'MISS'}`);
  console.log(`  ceiling: the reader alone needs ${Number(crawl.readerSecondsForSitePdfs).toFixed(1)} s for the site's PDFs; a crawl overlapping it perfectly could reach at most ${Number(crawl.ceilingRatio).toFixed(2)}×`);
}

function percent(x: number): string {
  return `${(x * 100).toFixed(2)}%`;
}

function printReading(reading: Record<string, unknown>): void {
  const rows = reading.rows as DocumentRow[];
  const table = [['document', 'pages', 'agreement', 'Forager s', 'pdftotext s', 'note'], ...rows.map((r) => [r.name, String(r.pages), percent(r.agreement), r.foragerSeconds.toFixed(2), r.peerSeconds.toFixed(2), r.note ?? ''])];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => (row[c] as string).length)));
  for (const row of table) console.log(row.map((cell, c) => cell.padEnd(widths[c] as number)).join('  ').trimEnd());
  const documents = Number(reading.documents);
  const median = Number(reading.medianAgreement);
  const worst = Number(reading.worstAgreement);
  const rss = Number(reading.readerPeakRssMB);
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
  console.log('');
  console.log(`agreement with pdftotext over ${documents} PDFs: median ${percent(median)}, worst ${percent(worst)} (${String(reading.worstDocument)}); ${String(reading.atTarget)} of ${documents} at ≥ ${percent(TARGET_AGREEMENT)}`);
  console.log(`  targets: ≥ ${TARGET_DOCUMENTS} PDFs ${verdict(documents >= TARGET_DOCUMENTS)}, median ≥ ${percent(TARGET_AGREEMENT)} ${verdict(median >= TARGET_AGREEMENT)}, worst ≥ ${percent(TARGET_AGREEMENT)} ${verdict(worst >= TARGET_AGREEMENT)}`);
  const ratio = Number(reading.foragerPagesPerSecond) / Number(reading.peerPagesPerSecond);
  console.log(`Forager reader: ${Number(reading.foragerPagesPerSecond).toFixed(0)} pages/s, ${Number(reading.foragerDocumentsPerSecond).toFixed(2)} documents/s`);
  console.log(`pdftotext:      ${Number(reading.peerPagesPerSecond).toFixed(0)} pages/s, ${Number(reading.peerDocumentsPerSecond).toFixed(2)} documents/s (Forager ${ratio.toFixed(2)}× pdftotext's pages/s)`);
  console.log(`reader peak RSS ${rss.toFixed(0)} MB (target < ${TARGET_RSS_MB} MB: ${verdict(rss < TARGET_RSS_MB)})`);
}

async function main(): Promise<void> {
  const files = corpus();
  const dir = mkdtempSync(join(tmpdir(), 'forager-documents-bench-'));
  try {
    const reading = await readingPart(files, dir);
    const readerSeconds = new Map((reading.rows as DocumentRow[]).map((row, i) => [files[i] as string, row.foragerSeconds]));
    const crawl = await crawlPart(files, dir, readerSeconds);
    if (values.json === true) console.log(JSON.stringify({ reading, crawl }));
    else {
      printReading(reading);
      printCrawl(crawl);
    }
    if (SMOKE) {
      reportSmoke({
        benchmark: 'bench:documents',
        peer: 'pdftotext',
        figures: {
          documents: reading.documents,
          medianAgreement: reading.medianAgreement,
          worstAgreement: reading.worstAgreement,
          foragerPagesPerSecond: reading.foragerPagesPerSecond,
          peerPagesPerSecond: reading.peerPagesPerSecond,
          readerPeakRssMB: reading.readerPeakRssMB,
          crawlRatio: crawl.ratio,
          crawlPeakRssMB: crawl.readingPeakRssMB,
        },
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.child === 'reader') await readerChild(JSON.parse(readFileSync(values.files ?? '', 'utf8')) as string[], values.out ?? '');
else if (values.child !== undefined) throw new ForagerError('USAGE', `unknown --child ${values.child}`, { child: values.child });
else await runBenchMain(main);
