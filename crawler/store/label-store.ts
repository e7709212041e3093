import { writeTransaction, type Db, type ReadonlyDb } from './database.ts';

/*
 * The labels table: the user's judgements of fetched pages. A label is ground truth, so
 * writing one sets the page's verdict (pages.hot) in the same transaction; the judge's own
 * verdict stays in pages.judged_hot, and clearing the label restores it.
 */

export type Label = 'relevant' | 'irrelevant';

export interface LabelResult {
  urlId: number;
  url: string;
  /** The label now on the page; null once cleared. */
  label: Label | null;
  /** The page's verdict now: the label, or the judge's own verdict when there is none. */
  hot: boolean;
  /** Its verdict before. */
  wasHot: boolean;
}

const UPSERT = 'INSERT INTO labels (url_id, relevant, labelled_at) VALUES (?, ?, ?) ON CONFLICT(url_id) DO UPDATE SET relevant = excluded.relevant, labelled_at = excluded.labelled_at';

/**
 * Records, changes or clears the label of the page fetched from URL `urlId`, and makes the
 * page's verdict follow it. Undefined when that URL has no stored page (nothing was written).
 */
export function writeLabel(db: Db, urlId: number, label: Label | null, now: number): LabelResult | undefined {
  const page = db.prepare('SELECT p.seq, u.url, p.hot FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.url_id = ?').get(urlId) as
    | { seq: number; url: string; hot: number }
    | undefined;
  if (page === undefined) return undefined;
  writeTransaction(db, () => {
    if (label === null) {
      db.prepare('DELETE FROM labels WHERE url_id = ?').run(urlId);
      db.prepare('UPDATE pages SET hot = coalesce(judged_hot, 0) WHERE seq = ?').run(page.seq);
    } else {
      db.prepare(UPSERT).run(urlId, label === 'relevant' ? 1 : 0, now);
      db.prepare('UPDATE pages SET hot = ? WHERE seq = ?').run(label === 'relevant' ? 1 : 0, page.seq);
    }
  });
  const hot = (db.prepare('SELECT hot FROM pages WHERE seq = ?').pluck().get(page.seq) as number) === 1;
  return { urlId, url: page.url, label, hot, wasHot: page.hot === 1 };
}

/** Labels as an import restores them, beside verdicts it sets itself (no change to pages.hot here). */
export class LabelStore {
  readonly #upsert;

  constructor(db: Db) {
    this.#upsert = db.prepare(UPSERT);
  }

  put(urlId: number, relevant: boolean, labelledAt: number): void {
    this.#upsert.run(urlId, relevant ? 1 : 0, labelledAt);
  }
}

export interface StoredLabel {
  urlId: number;
  relevant: boolean;
  title: string;
  text: string;
}

/** Every label with its page's title and text, for training. */
export function storedLabels(db: ReadonlyDb): StoredLabel[] {
  const rows = db
    .prepare(
      `SELECT l.url_id AS urlId, l.relevant, coalesce(p.title, '') AS title, coalesce(p.text, '') AS text
       FROM labels l JOIN pages p ON p.url_id = l.url_id`,
    )
    .all() as { urlId: number; relevant: number; title: string; text: string }[];
  return rows.map((r) => ({ ...r, relevant: r.relevant === 1 }));
}
