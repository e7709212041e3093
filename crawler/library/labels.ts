import { UsageError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { writeLabel, type Label, type LabelResult } from '../store/label-store.ts';
import { findUrlId } from './find-url.ts';

export type { Label, LabelResult };

/**
 * Records, changes or clears a user's judgement of a fetched page, named by its URL as the
 * user wrote it. Labels are ground truth: the page's verdict becomes the label at once
 * (store/label-store.ts writes both). A running crawl is told by the caller (the service),
 * and the next run trains the label model on all labels.
 */
export function setLabel(db: Db, rawUrl: string, label: Label | null, now = Date.now()): LabelResult {
  const result = writeLabel(db, findUrlId(db, rawUrl), label, now);
  if (result === undefined) throw new UsageError('that URL has not been fetched yet, so there is no page to label', { url: rawUrl });
  return result;
}
