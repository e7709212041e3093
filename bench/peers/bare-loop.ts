/**
 * The throughput benchmark's floor on cost: the least a crawler of one site must do per page,
 * with nothing else. One request in flight on one keep-alive connection (undici), the body
 * inflated when gzipped and decoded, parsed with htmlparser2 for its <a href> links, which
 * are resolved, kept on the seed's origin without their fragment, and queued breadth first
 * once each; redirects' targets are queued the same way. No robots.txt, no store, no text.
 * Prints one JSON line on stdout when done.
 *
 *   npx node bench/peers/bare-loop.ts --seed URL --max-pages N
 */
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';
import { Client } from 'undici';
import { UsageError } from '../../crawler/errors.ts';
import { peakRssMB } from '../support/peak-rss.ts';

export interface BareLoopReport {
  tool: 'bare-loop';
  /** Responses received, whatever their status. */
  pages: number;
  /** Requests that got no response. */
  failed: number;
  seconds: number;
  pagesPerSecond: number;
  /** Bodies as received (gzipped when the server gzipped them). */
  bytes: number;
  mbPerSecond: number;
  peakRssMB: number;
}

const BYTES_PER_MB = 1024 * 1024;

function readOptions(): { seed: URL; maxPages: number } {
  const { values } = parseArgs({ options: { seed: { type: 'string' }, 'max-pages': { type: 'string' } }, strict: true });
  if (values.seed === undefined) throw new UsageError('--seed URL is required');
  const maxPages = Number(values['max-pages']);
  if (!Number.isInteger(maxPages) || maxPages <= 0) throw new UsageError('--max-pages must be a positive integer', { value: values['max-pages'] });
  return { seed: new URL(values.seed), maxPages };
}

/** The href of every <a> of a page. */
function hrefsOf(html: string): string[] {
  const hrefs: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'a' && attributes.href !== undefined) hrefs.push(attributes.href);
    },
  });
  parser.end(html);
  return hrefs;
}

function charsetOf(contentType: string): string {
  return /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
}

function decode(bytes: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

async function main(): Promise<void> {
  const { seed, maxPages } = readOptions();
  const client = new Client(seed.origin);
  const queue: string[] = [seed.href];
  const seen = new Set(queue);
  const admit = (href: string, base: string): void => {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return;
    }
    if (url.origin !== seed.origin) return;
    url.hash = '';
    if (!seen.has(url.href)) {
      seen.add(url.href);
      queue.push(url.href);
    }
  };
  let pages = 0;
  let failed = 0;
  let bytes = 0;
  const started = performance.now();
  for (let next = 0; next < queue.length && pages < maxPages; next++) {
    const url = queue[next] as string;
    const target = new URL(url);
    try {
      const response = await client.request({ method: 'GET', path: target.pathname + target.search, headers: { 'accept-encoding': 'gzip' } });
      const received = Buffer.from(await response.body.arrayBuffer());
      pages++;
      bytes += received.length;
      const location = header(response.headers, 'location');
      if (location !== '') admit(location, url);
      const contentType = header(response.headers, 'content-type');
      if (response.statusCode !== 200 || !contentType.startsWith('text/html')) continue;
      const body = header(response.headers, 'content-encoding') === 'gzip' ? gunzipSync(received) : received;
      for (const href of hrefsOf(decode(body, contentType))) admit(href, url);
    } catch {
      failed++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  const report: BareLoopReport = {
    tool: 'bare-loop',
    pages,
    failed,
    seconds,
    pagesPerSecond: pages / seconds,
    bytes,
    mbPerSecond: bytes / BYTES_PER_MB / seconds,
    peakRssMB: peakRssMB(),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
