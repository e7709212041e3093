/**
 * The peer in the throughput benchmark: Crawlee's CheerioCrawler crawling one site
 * from a seed, configured the way its documentation suggests for a polite same-site
 * crawl, with storage kept in memory. Prints one JSON line on stdout when done.
 *
 *   npx node bench/peers/crawlee-crawl.ts --seed URL --max-pages N --concurrency 8
 */
import { parseArgs } from 'node:util';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { UsageError } from '../../crawler/errors.ts';

export interface CrawleeRunReport {
  tool: 'crawlee';
  pages: number;
  failed: number;
  seconds: number;
  pagesPerSecond: number;
  bytes: number;
  mbPerSecond: number;
  peakRssMB: number;
}

const BYTES_PER_MB = 1024 * 1024;

function positiveInteger(value: string | undefined, option: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) {
    throw new UsageError(`--${option} must be a positive integer`, { option, value });
  }
  return parsed;
}

function readOptions(): { seed: string; maxPages: number; concurrency: number } {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      'max-pages': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
    },
    strict: true,
  });
  if (values.seed === undefined) throw new UsageError('--seed URL is required');
  return {
    seed: values.seed,
    maxPages: positiveInteger(values['max-pages'], 'max-pages'),
    concurrency: positiveInteger(values.concurrency, 'concurrency'),
  };
}

async function main(): Promise<void> {
  const options = readOptions();
  log.setLevel(LogLevel.WARNING);
  const config = new Configuration({ persistStorage: false, logLevel: LogLevel.WARNING });

  let pages = 0;
  let bytes = 0;
  const started = performance.now();
  const crawler = new CheerioCrawler(
    {
      maxRequestsPerCrawl: options.maxPages,
      maxConcurrency: options.concurrency,
      respectRobotsTxtFile: true,
      sameDomainDelaySecs: 0,
      async requestHandler({ body, enqueueLinks }) {
        bytes += Buffer.byteLength(body);
        await enqueueLinks({ strategy: 'same-origin' });
        pages++;
      },
    },
    config,
  );
  const stats = await crawler.run([options.seed]);
  const seconds = (performance.now() - started) / 1000;

  const report: CrawleeRunReport = {
    tool: 'crawlee',
    pages,
    failed: stats.requestsFailed,
    seconds,
    pagesPerSecond: pages / seconds,
    bytes,
    mbPerSecond: bytes / BYTES_PER_MB / seconds,
    // maxRSS is in KiB.
    peakRssMB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
