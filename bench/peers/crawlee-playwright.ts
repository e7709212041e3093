/**
 * The peer in the render benchmark: Crawlee's PlaywrightCrawler over the same single-page
 * apps, with the same browser executable and the same number of pages open at once. Each page
 * waits for the network to go quiet (as a Crawlee user crawling a single-page app would) and
 * then enqueues its same-origin links. robots.txt is respected; storage is in memory. Prints
 * one JSON line on stdout when done; the benchmark measures its memory from outside.
 *
 *   node bench/peers/crawlee-playwright.ts --browser PATH --max-pages N --concurrency 2 --seed URL [--seed URL …]
 */
import { parseArgs } from 'node:util';
import { Configuration, log, LogLevel, PlaywrightCrawler } from '@crawlee/playwright';
import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    browser: { type: 'string' },
    'max-pages': { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    seed: { type: 'string', multiple: true },
  },
  strict: true,
});
if (values.browser === undefined || values.seed === undefined || values['max-pages'] === undefined) {
  throw new Error('usage: crawlee-playwright.ts --browser PATH --max-pages N --seed URL [--seed URL …]');
}

log.setLevel(LogLevel.OFF);
const config = new Configuration({ persistStorage: false, purgeOnStart: true });
const crawler = new PlaywrightCrawler(
  {
    launchContext: {
      launcher: chromium,
      launchOptions: { executablePath: values.browser, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] },
    },
    maxConcurrency: Number(values.concurrency),
    maxRequestsPerCrawl: Number(values['max-pages']),
    respectRobotsTxtFile: true,
    async requestHandler({ page, enqueueLinks }) {
      await page.waitForLoadState('networkidle');
      await enqueueLinks({ strategy: 'same-origin' });
    },
  },
  config,
);
const started = performance.now();
await crawler.run(values.seed);
const seconds = (performance.now() - started) / 1000;
const pages = crawler.stats.state.requestsFinished;
process.stdout.write(`${JSON.stringify({ tool: 'crawlee-playwright', pages, failed: crawler.stats.state.requestsFailed, seconds, pagesPerSecond: pages / seconds })}\n`);
