/**
 * The peer in the seen-test benchmark: Crawlee's RequestQueue, in memory, deduplicating
 * the same synthetic discoveries page by page (addRequests, which checks each request's
 * uniqueKey, Crawlee's normalised URL). Prints one JSON line when done.
 *
 *   npx node bench/peers/crawlee-queue.ts --urls N [--max-seconds S]
 */
import { parseArgs } from 'node:util';
import { Configuration, log, LogLevel, RequestQueue } from '@crawlee/cheerio';
import { discoveredUrls } from '../support/synthetic-links.ts';

const { values } = parseArgs({ options: { urls: { type: 'string' }, 'max-seconds': { type: 'string' } } });
const distinct = Number(values.urls ?? 1_000_000);
const maxSeconds = Number(values['max-seconds'] ?? 120);

log.setLevel(LogLevel.WARNING);
const config = new Configuration({ persistStorage: false, logLevel: LogLevel.WARNING });
const queue = await RequestQueue.open(null, { config });
let admitted = 0;
let truncated = false;
const started = performance.now();
for (const page of discoveredUrls(distinct)) {
  await queue.addRequests(page.map((url) => ({ url })));
  admitted += page.length;
  if ((performance.now() - started) / 1000 > maxSeconds) {
    truncated = true;
    break;
  }
}
const seconds = (performance.now() - started) / 1000;
const info = await queue.getInfo();
process.stdout.write(
  `${JSON.stringify({
    tool: 'crawlee-request-queue',
    admitted,
    distinct: info?.totalRequestCount ?? null,
    seconds,
    urlsPerSecond: admitted / seconds,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    truncated,
  })}\n`,
  () => process.exit(0),
);
