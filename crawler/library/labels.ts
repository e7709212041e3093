import { UsageError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { findUrlId } from './find-url.ts';

export interface LabelResult {
  url: string;
  relevant: boolean;
}

/**
 * Records a user's judgement of a fetched page. Labels are ground truth: the page's hot
 * verdict becomes the label at once, and the next crawl run trains the label model on them.
 */
export function labelPage(db: Db, rawUrl: string, relevant: boolean, now = Date.now()): LabelResult {
  const id = findUrlId(db, rawUrl);
  const page = db.prepare('SELECT p.seq, u.url FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.url_id = ?').get(id) as { seq: number; url: string } | undefined;
  if (page === undefined) throw new UsageError('that URL has not been fetched yet, so there is no page to label', { url: rawUrl });
  db.transaction(() => {
    db.prepare('INSERT INTO labels (url_id, relevant, labelled_at) VALUES (?, ?, ?) ON CONFLICT(url_id) DO UPDATE SET relevant = excluded.relevant, labelled_at = excluded.labelled_at').run(id, relevant ? 1 : 0, now);
    db.prepare('UPDATE pages SET hot = ? WHERE seq = ?').run(relevant ? 1 : 0, page.seq);
  })();
  return { url: page.url, relevant };
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
