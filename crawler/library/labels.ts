import { UsageError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { findUrlId } from './find-url.ts';

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

/**
 * Records, changes or clears a user's judgement of a fetched page. Labels are ground
 * truth: the page's verdict becomes the label at once. The judge's own verdict is kept
 * beside it (pages.judged_hot), so clearing the label restores it. A running crawl is told
 * by the caller (the service), and the next run trains the label model on all labels.
 */
export function setLabel(db: Db, rawUrl: string, label: Label | null, now = Date.now()): LabelResult {
  const id = findUrlId(db, rawUrl);
  const page = db.prepare('SELECT p.seq, u.url, p.hot FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.url_id = ?').get(id) as
    | { seq: number; url: string; hot: number }
    | undefined;
  if (page === undefined) throw new UsageError('that URL has not been fetched yet, so there is no page to label', { url: rawUrl });
  db.transaction(() => {
    if (label === null) {
      db.prepare('DELETE FROM labels WHERE url_id = ?').run(id);
      db.prepare('UPDATE pages SET hot = coalesce(judged_hot, 0) WHERE seq = ?').run(page.seq);
    } else {
      db.prepare('INSERT INTO labels (url_id, relevant, labelled_at) VALUES (?, ?, ?) ON CONFLICT(url_id) DO UPDATE SET relevant = excluded.relevant, labelled_at = excluded.labelled_at').run(
        id,
        label === 'relevant' ? 1 : 0,
        now,
      );
      db.prepare('UPDATE pages SET hot = ? WHERE seq = ?').run(label === 'relevant' ? 1 : 0, page.seq);
    }
  })();
  const hot = (db.prepare('SELECT hot FROM pages WHERE seq = ?').pluck().get(page.seq) as number) === 1;
  return { urlId: id, url: page.url, label, hot, wasHot: page.hot === 1 };
}

export interface StoredLabel {
  urlId: number;
  relevant: boolean;
  title: string;
  text: string;
}

/** Every label with its page's title and text, for training. */
export function storedLabels(db: Db): StoredLabel[] {
  const rows = db
    .prepare(
      `SELECT l.url_id AS urlId, l.relevant, coalesce(p.title, '') AS title, coalesce(p.text, '') AS text
       FROM labels l JOIN pages p ON p.url_id = l.url_id`,
    )
    .all() as { urlId: number; relevant: number; title: string; text: string }[];
  return rows.map((r) => ({ ...r, relevant: r.relevant === 1 }));
}
