/*
 * Main's end of the port to the crawler process: turns each request into a promise that
 * the matching answer settles, and hands pushed events to one listener. When the process
 * dies, `abandon` settles every open request so no IPC call waits forever. No Electron import.
 */
import type { ApiMethod, ServiceEvent } from '../../crawler/protocol/api.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';
import { wireError } from '../shared/crawler-protocol.ts';
import type { CrawlerMessage, CrawlerRequest, ExportFile, PortLike, WireRequest, WireResponse } from '../shared/crawler-protocol.ts';

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type RequestBody = WithoutId<CrawlerRequest>;

export class CrawlerClient {
  readonly #port: PortLike;
  readonly #pending = new Map<number, (answer: CrawlerMessage | undefined) => void>();
  #nextId = 1;
  #abandoned: string | undefined;

  constructor(port: PortLike, onEvent: (event: ServiceEvent) => void) {
    this.#port = port;
    port.on('message', ({ data }) => {
      const message = data as CrawlerMessage;
      if (message.kind === 'event') {
        onEvent(message.event);
        return;
      }
      const settle = this.#pending.get(message.id);
      if (settle === undefined) return;
      this.#pending.delete(message.id);
      settle(message);
    });
    port.start();
  }

  async call(method: ApiMethod, input: unknown): Promise<ApiReply> {
    const answer = await this.#ask({ kind: 'call', method, input });
    if (answer?.kind === 'call') return answer.reply;
    return { ok: false, error: { code: 'UNAVAILABLE', message: this.#abandoned ?? 'The crawler process did not answer.' } };
  }

  async exportFile(exportId: string): Promise<ExportFile | undefined> {
    const answer = await this.#ask({ kind: 'exportFile', exportId });
    return answer?.kind === 'exportFile' && answer.file !== null ? answer.file : undefined;
  }

  async view(request: WireRequest): Promise<WireResponse> {
    const answer = await this.#ask({ kind: 'view', request });
    return answer?.kind === 'view' ? answer.response : wireError(503, this.#abandoned ?? 'The crawler process did not answer.');
  }

  /** Asks the crawler to stop its crawls and close its collections; resolves when it has. */
  async close(): Promise<void> {
    await this.#ask({ kind: 'close' });
  }

  get abandoned(): boolean {
    return this.#abandoned !== undefined;
  }

  /** The process is gone: every open and later request is answered with `reason`. */
  abandon(reason: string): void {
    this.#abandoned ??= reason;
    const open = [...this.#pending.values()];
    this.#pending.clear();
    for (const settle of open) settle(undefined);
  }

  #ask(body: RequestBody): Promise<CrawlerMessage | undefined> {
    if (this.#abandoned !== undefined) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#port.postMessage({ ...body, id } as CrawlerRequest);
    });
  }
}
