import { storedAcronyms } from './stored-acronyms.ts';
import { replayHistory } from './history-replay.ts';
import { createStrategy } from '../ordering/registry.ts';
import type { SignalExplanation } from '../protocol/explanation.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { URL_STATE_NAMES, type UrlStateValue } from '../store/url-state.ts';
import { findUrlId } from './find-url.ts';
import { documentTypesOf } from '../parse/documents/document-facts.ts';
import { describeRuleRefusal, UrlRules } from '../url/url-rules.ts';

export interface ParentLink {
  url: string;
  anchor: string;
  context: string;
  parentHot: boolean;
  parentRelevance: number | null;
}

export interface UrlExplanation {
  url: string;
  state: string;
  reason: string | null;
  depth: number;
  /**
   * The include or exclude rule that refuses the URL under the collection's rules, in the
   * command line's words (`excluded by --exclude "**\/*.zip"`), or null when they admit it (seeds always).
   */
  rule: string | null;
  strategy: string;
  priority: number;
  signals: SignalExplanation[];
  parents: ParentLink[];
  /** Link distance to the nearest fetched hot page (0 when it is one), or null when none is known within 3 links. */
  hotDistance: number | null;
  fetched: { relevance: number | null; hot: boolean; label: 'relevant' | 'irrelevant' | null } | null;
}

const MAX_HOT_DISTANCE = 3;

/**
 * Why a URL has its priority: the collection's history is replayed through its ordering
 * strategy (the same events the crawl produced), then the strategy explains the URL.
 */
export function explainUrl(db: ReadonlyDb, settings: CrawlSettings, rawUrl: string): UrlExplanation {
  const id = findUrlId(db, rawUrl);
  const row = db.prepare('SELECT url, state, reason, depth FROM urls WHERE id = ?').get(id) as { url: string; state: UrlStateValue; reason: string | null; depth: number };
  const strategy = createStrategy(settings.strategy, { query: settings.query, randomSeed: settings.randomSeed, documents: documentTypesOf(settings.documents) });
  replayHistory(db, strategy, storedAcronyms(db, settings.query));
  const why = strategy.explain(id);
  const parents = db
    .prepare(
      `SELECT u.url, l.anchor, l.context_before AS before, l.context_after AS after, p.hot, p.relevance
       FROM links l JOIN pages p ON p.seq = l.src_seq JOIN urls u ON u.id = p.url_id WHERE l.dst_id = ? ORDER BY p.seq`,
    )
    .all(id) as { url: string; anchor: string; before: string; after: string; hot: number; relevance: number | null }[];
  const page = db
    .prepare('SELECT p.relevance, p.hot, l.relevant FROM pages p LEFT JOIN labels l ON l.url_id = p.url_id WHERE p.url_id = ?')
    .get(id) as { relevance: number | null; hot: number; relevant: number | null } | undefined;
  return {
    url: row.url,
    state: URL_STATE_NAMES[row.state],
    reason: row.reason,
    depth: row.depth,
    rule: ruleRefusing(settings, row.url),
    strategy: strategy.name,
    priority: why.priority,
    signals: why.signals,
    parents: parents.map((p) => ({
      url: p.url,
      anchor: p.anchor,
      context: [p.before, p.after].filter((c) => c !== '').join(' … '),
      parentHot: p.hot === 1,
      parentRelevance: p.relevance,
    })),
    hotDistance: hotDistance(db, id),
    fetched:
      page === undefined
        ? null
        : { relevance: page.relevance, hot: page.hot === 1, label: page.relevant === null ? null : page.relevant === 1 ? 'relevant' : 'irrelevant' },
  };
}

function ruleRefusing(settings: CrawlSettings, url: string): string | null {
  if (settings.seeds.includes(url)) return null;
  const verdict = new UrlRules(settings).judge(url);
  return verdict.admitted ? null : describeRuleRefusal(verdict);
}

/** Breadth-first over in-links, up to three links back, to the nearest fetched hot page. */
function hotDistance(db: ReadonlyDb, id: number): number | null {
  const isHot = db.prepare('SELECT hot FROM pages WHERE url_id = ?').pluck();
  const parentsOf = db.prepare('SELECT p.url_id FROM links l JOIN pages p ON p.seq = l.src_seq WHERE l.dst_id = ?').pluck();
  let frontier = [id];
  const seen = new Set(frontier);
  for (let distance = 0; distance <= MAX_HOT_DISTANCE; distance++) {
    if (frontier.some((u) => isHot.get(u) === 1)) return distance;
    const next: number[] = [];
    for (const u of frontier) {
      for (const parent of parentsOf.all(u) as number[]) {
        if (!seen.has(parent)) {
          seen.add(parent);
          next.push(parent);
        }
      }
    }
    frontier = next;
  }
  return null;
}
