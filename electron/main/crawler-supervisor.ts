/*
 * Runs the crawler (service, collections, crawls) in one utility process, so main stays
 * responsive and is never a second writer. A process that dies is started again on the
 * next request, never in a loop on its own.
 */
import { MessageChannelMain, utilityProcess } from 'electron';
import type { UtilityProcess } from 'electron';
import { CRAWLER_NODE_FLAGS, missingMallocSettings } from '../../crawler/memory/process-tuning.ts';
import type { ServiceEvent } from '../../crawler/protocol/api.ts';
import { CrawlerClient } from './crawler-client.ts';
import type { CrawlerStart } from '../shared/crawler-protocol.ts';

const CLOSE_TIMEOUT_MS = 10_000;

export class CrawlerSupervisor {
  readonly #entry: string;
  readonly #dir: string;
  readonly #onEvent: (event: ServiceEvent) => void;
  #child: UtilityProcess | undefined;
  #client: CrawlerClient | undefined;
  #stopping: Promise<void> | undefined;

  /**
   * @param entry the compiled crawler-process.js
   * @param dir where collections live
   */
  constructor(entry: string, dir: string, onEvent: (event: ServiceEvent) => void) {
    this.#entry = entry;
    this.#dir = dir;
    this.#onEvent = onEvent;
  }

  /** The client of a running crawler process, starting one when there is none (unless stopping). */
  client(): CrawlerClient {
    if (this.#client !== undefined && (!this.#client.abandoned || this.#stopping !== undefined)) return this.#client;
    const { port1, port2 } = new MessageChannelMain();
    // The CLI's heap flags and malloc settings (crawler/memory/process-tuning.ts says why): they keep crawls and exports of big collections under 300 MB.
    const child = utilityProcess.fork(this.#entry, [], {
      serviceName: 'Forager crawler',
      stdio: 'inherit',
      execArgv: [...CRAWLER_NODE_FLAGS],
      env: { ...process.env, ...missingMallocSettings(process.env) },
    });
    const client = new CrawlerClient(port1, this.#onEvent);
    child.once('exit', (code) => {
      client.abandon(`The crawler process stopped (exit code ${code}).`);
      port1.close();
    });
    child.postMessage({ dir: this.#dir } satisfies CrawlerStart, [port2]);
    this.#child = child;
    this.#client = client;
    return client;
  }

  /** Lets the service finish its crawls and close its files, then ends the process; for good. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const child = this.#child;
    const client = this.#client;
    if (child === undefined || client === undefined || client.abandoned) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS).unref());
    await Promise.race([client.close(), timeout]);
    client.abandon('The app is closing.');
    child.kill();
  }
}
