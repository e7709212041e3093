/**
 * The first pass of a mirror export: which selected pages have an HTML body or are documents
 * with their bytes, and the file each one gets. Kept per page: its seq, kind, relevance, fetch
 * time and path, and the URL → path map that links are rewritten with (a few hundred bytes a
 * page, so 100,000 pages cost tens of MB). Page text and bodies are not kept: the second pass
 * reads them one page at a time.
 */
import { selectedPages } from '../../library/export-selection.ts';
import type { ExportFilter } from '../../protocol/api.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { MirrorNames, type MirrorFileKind } from './names.ts';
import type { MirrorSource } from './source.ts';

export interface MirrorPlan {
  /** In fetch order. */
  readonly seqs: number[];
  readonly kinds: MirrorFileKind[];
  readonly paths: string[];
  /** NaN for a page never judged. */
  readonly relevance: number[];
  /** Epoch ms. */
  readonly fetchedAt: number[];
  /** Canonical URL → mirror path. */
  readonly pathOf: Map<string, string>;
}

export function planMirror(db: ReadonlyDb, filter: ExportFilter, source: MirrorSource): MirrorPlan {
  const names = new MirrorNames();
  const plan: MirrorPlan = { seqs: [], kinds: [], paths: [], relevance: [], fetchedAt: [], pathOf: new Map() };
  for (const page of selectedPages(db, filter)) {
    const kind = source.fileKind(page);
    if (kind === undefined) continue;
    const path = names.assign(page.url, kind);
    plan.seqs.push(page.seq);
    plan.kinds.push(kind);
    plan.paths.push(path);
    plan.relevance.push(page.relevance ?? Number.NaN);
    plan.fetchedAt.push(page.fetchedAt);
    plan.pathOf.set(page.url, path);
  }
  return plan;
}

/** Positions in the plan, most relevant first (unjudged pages last, ties in fetch order). */
export function byRelevance(plan: MirrorPlan): Uint32Array {
  const order = Uint32Array.from(plan.seqs.keys());
  const score = (i: number): number => {
    const r = plan.relevance[i] as number;
    return Number.isNaN(r) ? Number.NEGATIVE_INFINITY : r;
  };
  return order.sort((a, b) => score(b) - score(a) || a - b);
}
