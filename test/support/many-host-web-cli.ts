/*
 * Runs a many-host web (many-host-web.ts) in a process of its own, so that a benchmark does
 * not count the web's CPU as the crawler's:
 *
 *   node test/support/many-host-web-cli.ts --hosts 500 --pages 10 --seed 1 --latency 0 \
 *     --port-file web.json --log-file log.json
 *
 * Once every server listens it writes --port-file (ManyHostWebInfo as JSON: pid, origins,
 * seeds, pageUrls, crawlDelays; written to a temporary name and renamed, so a reader never
 * sees half a file). On SIGTERM or SIGINT it writes the request log (RequestLogEntry[]) to
 * --log-file the same way, closes every server and exits 0. spawnManyHostWeb() drives it.
 *
 * Other flags: --cross SHARE, --links N, --seed-hosts N, --base-port PORT,
 * --crawl-delay SECONDS, --crawl-delay-share SHARE.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startManyHostWeb, type ManyHostWebInfo, type ManyHostWebOptions } from './many-host-web.ts';

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

function number(flags: Record<string, string | boolean | undefined>, name: string): number | undefined {
  const value = flags[name];
  if (value === undefined || typeof value === 'boolean') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      hosts: { type: 'string' },
      pages: { type: 'string' },
      seed: { type: 'string' },
      latency: { type: 'string' },
      cross: { type: 'string' },
      links: { type: 'string' },
      'seed-hosts': { type: 'string' },
      'base-port': { type: 'string' },
      'crawl-delay': { type: 'string' },
      'crawl-delay-share': { type: 'string' },
      'port-file': { type: 'string' },
      'log-file': { type: 'string' },
    },
    strict: true,
  });
  const portFile = values['port-file'];
  if (portFile === undefined) throw new Error('--port-file PATH is required');
  const hosts = number(values, 'hosts');
  if (hosts === undefined) throw new Error('--hosts N is required');
  const delaySeconds = number(values, 'crawl-delay');
  const options: ManyHostWebOptions = {
    hosts,
    pagesPerHost: number(values, 'pages'),
    seed: number(values, 'seed'),
    latencyMs: number(values, 'latency'),
    crossLinkShare: number(values, 'cross'),
    linksPerPage: number(values, 'links'),
    seedHosts: number(values, 'seed-hosts'),
    basePort: number(values, 'base-port'),
    crawlDelay: delaySeconds === undefined ? undefined : { seconds: delaySeconds, share: number(values, 'crawl-delay-share') },
  };
  const web = await startManyHostWeb(options);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    const logFile = values['log-file'];
    if (logFile !== undefined) writeAtomically(logFile, JSON.stringify(web.log));
    void web.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  const crawlDelays: Record<string, number> = {};
  for (const origin of web.origins) {
    const delay = web.crawlDelaySeconds(origin);
    if (delay !== undefined) crawlDelays[origin] = delay;
  }
  const info: ManyHostWebInfo = { pid: process.pid, origins: web.origins, seeds: web.seeds, pageUrls: web.pageUrls(), crawlDelays };
  writeAtomically(portFile, JSON.stringify(info));
}

main().catch((err: unknown) => {
  process.stderr.write(`many-host-web: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
