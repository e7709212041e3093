import { gunzipSync } from 'node:zlib';
import type { ReadonlyDb } from '../store/database.ts';

/** The schema version that added the renders and subresources tables (store/migrations.ts). */
const RENDERS_SCHEMA = 6;

export interface StoredRender {
  dom: string;
  renderedAt: number;
  /** Each request the page made while rendered: [url, type, outcome]. */
  requests: [string, string, string][];
}

export interface StoredSubresourceRow {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  fetchedAt: number;
}

/** What renders and requisites left in a collection: a page's rendered DOM, the subresources fetched, and which page needs which. */
export class RenderRows {
  readonly #render: ((seq: number) => unknown) | undefined;
  readonly #subresource: ((url: string) => unknown) | undefined;
  readonly #requisites: ((seq: number) => string[]) | undefined;

  constructor(db: ReadonlyDb) {
    // Collections from before rendering have neither table: they have no renders.
    if ((db.prepare('PRAGMA user_version').pluck().get() as number) < RENDERS_SCHEMA) return;
    const render = db.prepare('SELECT dom, rendered_at, requests FROM renders WHERE page_seq = ?');
    const subresource = db.prepare('SELECT url, status, headers, body, fetched_at FROM subresources WHERE url = ?');
    const requisites = db.prepare('SELECT url FROM requisites WHERE page_seq = ? ORDER BY url').pluck();
    this.#render = (seq) => render.get(seq);
    this.#subresource = (url) => subresource.get(url);
    this.#requisites = (seq) => requisites.all(seq) as string[];
  }

  /** The stylesheets, images and fonts stored for a page. */
  requisites(seq: number): string[] {
    return this.#requisites?.(seq) ?? [];
  }

  render(seq: number): StoredRender | undefined {
    const row = this.#render?.(seq) as { dom: Buffer; rendered_at: number; requests: string } | undefined;
    if (row === undefined) return undefined;
    return { dom: gunzipSync(row.dom).toString('utf8'), renderedAt: row.rendered_at, requests: JSON.parse(row.requests) as [string, string, string][] };
  }

  /** A stored 2xx subresource as a viewer shows it: its type and bytes. */
  shownResource(url: string): { contentType: string; body: Buffer } | undefined {
    const stored = this.subresource(url);
    if (stored === undefined || stored.status < 200 || stored.status >= 300) return undefined;
    return { contentType: stored.headers['content-type'] ?? '', body: stored.body };
  }

  subresource(url: string): StoredSubresourceRow | undefined {
    const row = this.#subresource?.(url) as { url: string; status: number; headers: string; body: Buffer; fetched_at: number } | undefined;
    if (row === undefined) return undefined;
    return { url: row.url, status: row.status, headers: JSON.parse(row.headers) as Record<string, string>, body: row.body, fetchedAt: row.fetched_at };
  }
}

/** The subresources a render used (fetched then or read from the crawl's cache), in the order it asked for them. */
export function usedSubresources(render: StoredRender): string[] {
  return render.requests.filter(([, , outcome]) => outcome === 'fetched' || outcome === 'cached').map(([url]) => url);
}
