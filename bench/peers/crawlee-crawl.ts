/**
 * The peer in the throughput benchmark: Crawlee's CheerioCrawler crawling one site
 * from a seed with a page budget, robots.txt respected, same-origin links followed and
 * storage kept in memory; other settings are Crawlee's defaults. Prints one JSON line
 * on stdout when done.
 *
 *   npx node bench/peers/crawlee-crawl.ts --seed URL --max-pages N --concurrency 8 [--max-seconds S]
 */
import type { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { UsageError } from '../../crawler/errors.ts';

export interface CrawleeRunReport {
  tool: 'crawlee';
  pages: number;
  failed: number;
  seconds: number;
  pagesPerSecond: number;
  /** Bytes received on the crawl's sockets (compressed, as on the wire, headers included). */
  bytes: number;
  /** Page bodies after decompression. */
  decodedBytes: number;
  mbPerSecond: number;
  peakRssMB: number;
  /** True when --max-seconds stopped the crawl before it finished. */
  truncated: boolean;
}

const BYTES_PER_MB = 1024 * 1024;

function positiveInteger(value: string | undefined, option: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) {
    throw new UsageError(`--${option} must be a positive integer`, { option, value });
  }
  return parsed;
}

function readOptions(): { seed: string; maxPages: number; concurrency: number; maxSeconds: number | undefined } {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      'max-pages': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      'max-seconds': { type: 'string' },
    },
    strict: true,
  });
  if (values.seed === undefined) throw new UsageError('--seed URL is required');
  return {
    seed: values.seed,
    maxPages: positiveInteger(values['max-pages'], 'max-pages'),
    concurrency: positiveInteger(values.concurrency, 'concurrency'),
    maxSeconds: values['max-seconds'] === undefined ? undefined : positiveInteger(values['max-seconds'], 'max-seconds'),
  };
}

interface Tally {
  decodedBytes: number;
  /** Every socket a page arrived on; summing their bytesRead gives the bytes as received. */
  sockets: Set<Socket>;
}

/** Crawlee's own counters: a timed-out handler keeps running, so counting in it would overcount. */
function report(crawler: CheerioCrawler, tally: Tally, seconds: number, truncated: boolean): CrawleeRunReport {
  const pages = crawler.stats.state.requestsFinished;
  let bytes = 0;
  for (const socket of tally.sockets) bytes += socket.bytesRead;
  return {
    tool: 'crawlee',
    pages,
    failed: crawler.stats.state.requestsFailed,
    seconds,
    pagesPerSecond: pages / seconds,
    bytes,
    decodedBytes: tally.decodedBytes,
    mbPerSecond: bytes / BYTES_PER_MB / seconds,
    // maxRSS is in KiB.
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    truncated,
  };
}

let reported = false;

function printAndExit(result: CrawleeRunReport): void {
  if (reported) return;
  reported = true;
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}

async function main(): Promise<void> {
  const options = readOptions();
  log.setLevel(LogLevel.WARNING);
  const config = new Configuration({ persistStorage: false, logLevel: LogLevel.WARNING });

  const tally: Tally = { decodedBytes: 0, sockets: new Set() };
  const started = performance.now();
  const crawler = new CheerioCrawler(
    {
      maxRequestsPerCrawl: options.maxPages,
      maxConcurrency: options.concurrency,
      respectRobotsTxtFile: true,
      sameDomainDelaySecs: 0,
      async requestHandler({ body, response, enqueueLinks }) {
        tally.decodedBytes += Buffer.byteLength(body);
        if (response.socket !== null) tally.sockets.add(response.socket);
        await enqueueLinks({ strategy: 'same-origin' });
      },
    },
    config,
  );
  if (options.maxSeconds !== undefined) {
    // Crawlee can spend minutes per page on link-heavy sites; the cap reports the rate so far.
    setTimeout(() => printAndExit(report(crawler, tally, (performance.now() - started) / 1000, true)), options.maxSeconds * 1000);
  }
  await crawler.run([options.seed]);
  printAndExit(report(crawler, tally, (performance.now() - started) / 1000, false));
}

await main();
