/*
 * What every e2e test of the app shares: Debian's Chromium (and the reason a suite is skipped
 * without it), `forager serve` started on a free port with its URL read from its output, and a
 * poller for what the page or the collection shows next.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { spawnCli, type RunningCli } from './cli.ts';

export const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

/** Why the suite cannot run without Chromium, or undefined when it is there. */
export function missingChromium(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
}

/**
 * A suite's `skip`: what it misses, in words, or false. CI installs everything (.ci/run), so
 * there a missing program fails the suite instead of skipping it.
 */
export function skipWhenMissing(...missing: (string | undefined)[]): string | false {
  const reasons = missing.filter((reason) => reason !== undefined);
  return reasons.length > 0 && process.env.CI === undefined ? reasons.join('; ') : false;
}

/** Polls `probe` every 100 ms until `accept` takes its value; fails naming `what` and the last value. */
export async function waitFor<T>(probe: () => Promise<T> | T, accept: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last value ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
    last = await probe();
  }
  return last;
}

export interface ServedApp {
  cli: RunningCli;
  /** The app's address with its token, as serve prints it. */
  url: string;
  /** The serve origin (http://127.0.0.1:PORT), for telling the app's requests from others. */
  origin: string;
}

/** Starts `forager serve --port 0` with `args` and resolves once it prints its URL. */
export async function startServe(args: readonly string[]): Promise<ServedApp> {
  const cli = spawnCli(['serve', '--port', '0', ...args], { timeoutMs: 170_000 });
  const url = await waitFor(() => /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(cli.stdout())?.[1], (u) => u !== undefined, 'the serve URL', 10_000).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; serve wrote: ${cli.stderr()}`);
  });
  return { cli, url: url as string, origin: new URL(url as string).origin };
}

export async function stopServe(cli: RunningCli | undefined): Promise<void> {
  cli?.child.kill('SIGTERM');
  await cli?.done;
}

/** Chromium, headless; without its sandbox when run as root, where it would not start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}
