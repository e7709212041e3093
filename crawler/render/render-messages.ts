import type { RenderedPage, RenderInput, SubresourceOutcome } from './page-renderer.ts';

/*
 * What the crawler and its render process (render-process.ts, render-host.ts) say to each
 * other over the IPC channel, with Node's advanced serialisation (Buffers cross as bytes).
 */

/** How the render process is set up, sent once it starts. */
export interface RenderHostOptions {
  executablePath: string;
  contexts: number;
  timeoutMs: number;
}

export type ToRenderHost =
  | { type: 'start'; options: RenderHostOptions }
  | { type: 'render'; id: number; input: RenderInput }
  /** The render's crawl no longer wants it (a cluster's shard closed): its page is closed. */
  | { type: 'cancel'; id: number }
  | { type: 'fetched'; fetchId: number; outcome: SubresourceOutcome };

export type FromRenderHost =
  | { type: 'rendered'; id: number; page: RenderedPage }
  /** `unavailable`: the browser will not start, and the process renders nothing more. */
  | { type: 'failed'; id: number; message: string; unavailable: boolean }
  /** A request of a page being rendered (render `renderId`), for the subresource fetcher of that render's crawl. */
  | { type: 'fetch'; fetchId: number; renderId: number; url: string; pageUrl: string }
  | { type: 'cancel-fetch'; fetchId: number };
