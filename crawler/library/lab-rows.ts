import { storedBodySql } from '../store/stored-body.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { storedRootResources, storedSeedIds, type RootResource } from '../store/url-store.ts';

/*
 * What the lab reads to rebuild a stored crawl's page graph (lab/load.ts) and the words of
 * its pages (lab/page-texts.ts). A reader may hold a collection of an older schema as it is
 * (schema 2 has no URL kinds): hasUrlKinds says which. Large lists are streamed; remember
 * that a statement cannot run while another iterates.
 */

export interface LabPageRow {
  seq: number;
  urlId: number;
  relevance: number | null;
  hot: number;
  redirectTo: number | null;
  status: number;
}

export interface LabPageText {
  urlId: number;
  title: string;
  text: string;
}

export class LabRows {
  readonly #db: ReadonlyDb;
  readonly #text;
  readonly #resource;
  readonly #resourceLinks;

  constructor(db: ReadonlyDb) {
    this.#db = db;
    this.#text = db.prepare("SELECT coalesce(title, '') AS title, coalesce(text, '') AS text FROM pages WHERE seq = ?");
    this.#resource = db.prepare(`SELECT u.url, ${storedBodySql(db, 'p')} AS body FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`);
    this.#resourceLinks = db.prepare('SELECT u.url, l.dst_id FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ?').raw();
  }

  /** False for a collection older than schema 3 opened as it is (a read-only tool's raw handle): it has no site resources. */
  hasUrlKinds(): boolean {
    return this.#db.prepare("SELECT count(*) FROM pragma_table_info('urls') WHERE name = 'kind'").pluck().get() === 1;
  }

  /** Every URL as [id, url, kind code] in id order, streamed; kind 0 (a page) for all when the schema has no kinds. */
  urls(withKinds: boolean): IterableIterator<[number, string, number]> {
    return this.#db.prepare(`SELECT id, url, ${withKinds ? 'kind' : '0'} FROM urls ORDER BY id`).raw().iterate() as IterableIterator<[number, string, number]>;
  }

  seedIds(): number[] {
    return storedSeedIds(this.#db);
  }

  /** Site resources that no page listed (schema 3 and later). */
  rootResources(): RootResource[] {
    return storedRootResources(this.#db);
  }

  /** Every stored page in fetch order, whatever its status. */
  pages(): LabPageRow[] {
    return this.#db.prepare('SELECT seq, url_id AS urlId, relevance, hot, redirect_to AS redirectTo, status FROM pages ORDER BY seq').all() as LabPageRow[];
  }

  /** A page's title and text ('' for none). */
  text(seq: number): { title: string; text: string } {
    return this.#text.get(seq) as { title: string; text: string };
  }

  /** [seq, terms] of every page with terms, streamed. */
  terms(): IterableIterator<[number, string]> {
    return this.#db.prepare("SELECT seq, terms FROM pages WHERE terms IS NOT NULL AND terms <> ''").raw().iterate() as IterableIterator<[number, string]>;
  }

  /** Every link as [src seq, dst id, anchor, context before, context after], in src_seq order (the primary key), streamed. */
  links(): IterableIterator<[number, number, string, string, string]> {
    return this.#db
      .prepare('SELECT src_seq, dst_id, anchor, context_before, context_after FROM links ORDER BY src_seq')
      .raw()
      .iterate() as IterableIterator<[number, number, string, string, string]>;
  }

  /** A stored site resource's URL and body. */
  resource(seq: number): { url: string; body: Buffer | null } {
    return this.#resource.get(seq) as { url: string; body: Buffer | null };
  }

  /** A page's links as [target URL, target id]. */
  resourceLinks(seq: number): [string, number][] {
    return this.#resourceLinks.all(seq) as [string, number][];
  }

  /** Title and text of every stored page with text, streamed. */
  pageTexts(): IterableIterator<LabPageText> {
    return this.#db.prepare("SELECT url_id AS urlId, coalesce(title, '') AS title, text FROM pages WHERE text IS NOT NULL").iterate() as IterableIterator<LabPageText>;
  }
}
