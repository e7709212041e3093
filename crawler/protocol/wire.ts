/*
 * How the service API travels. Shared by the serve transport, the Electron main and
 * preload scripts, and the renderer's clients, so that the two transports cannot drift.
 *
 * Browser (`forager serve`): the app lives under a secret root /s/<key>/ (so that its cookie
 * reaches no other port), and the paths below are relative to that root.
 *   GET  /?token=T          sets the session cookie and redirects to the root
 *   POST /api/<method>      body: the input as JSON; reply: ApiReply
 *   GET  /api/events        Server-Sent Events, one ServiceEvent per message
 *   GET  /api/exports/<id>  the file of a finished export, as a download
 *   GET  /stored/<viewPath> a stored page, sanitised (see crawler/viewer)
 * Electron:
 *   the preload exposes ForagerBridge as window.forager; main validates every call and
 *   forwards it to the crawler's utility process; stored pages come from
 *   STORED_PAGE_SCHEME://<viewPath>.
 */
import type { ApiErrorBody, ServiceEvent } from './api.ts';

export type ApiReply = { ok: true; value: unknown } | { ok: false; error: ApiErrorBody };

export const API_PREFIX = '/api/';
export const EVENTS_PATH = '/api/events';
export const EXPORTS_PREFIX = '/api/exports/';
export const STORED_PREFIX = '/stored/';
export const STORED_PAGE_SCHEME = 'forager-page';

/** The cookie that carries the session token; per port, since cookies ignore ports. */
export function sessionCookieName(port: number): string {
  return `forager_session_${port}`;
}

/** A page's place in the viewer, the same under both transports. */
export function viewPath(collection: string, seq: number): string {
  return `${encodeURIComponent(collection)}/${seq}`;
}

export function parseViewPath(path: string): { collection: string; seq: number } | undefined {
  const match = /^([^/]+)\/([1-9]\d{0,15})$/.exec(path);
  if (match === null) return undefined;
  try {
    return { collection: decodeURIComponent(match[1] as string), seq: Number(match[2]) };
  } catch {
    return undefined;
  }
}

/** What the Electron preload exposes as window.forager, and nothing more. */
export interface ForagerBridge {
  call(method: string, input: unknown): Promise<ApiReply>;
  /** Returns a function that stops listening. */
  onEvent(listener: (event: ServiceEvent) => void): () => void;
  /** Asks where to save a finished export and copies it there; false when the user cancels. */
  saveExport(exportId: string): Promise<boolean>;
}
