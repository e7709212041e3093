import type { ExportResult, ServiceEvent } from '../../../crawler/protocol/api.ts';

/** One way of reaching the service: Electron's bridge or `forager serve` over HTTP. */
export interface Transport {
  readonly kind: 'electron' | 'http';
  /** The raw reply to one call (an ApiReply when all is well); rejects with an ApiError when unreachable. */
  call(method: string, input: unknown): Promise<unknown>;
  /** Returns a function that stops listening. */
  onEvent(listener: (event: ServiceEvent) => void): () => void;
  /** Hands a finished export to the user; false when they cancel. */
  saveExport(result: ExportResult): Promise<boolean>;
  /** Where the sandboxed viewer finds a stored page. */
  pageSrc(viewPath: string): string;
}
