/**
 * Replays of a stored full crawl, the way the benchmark measures ideas: every topic and
 * strategy on one loaded site graph, with the crawl's own judge re-judging pages in the
 * replayed order (default mode) or the topic's predicate as the judge (--hot mode). PST is
 * always scored against the predicate.
 */
import Database from 'better-sqlite3';
import { loadLabGraph } from '../../crawler/lab/load.ts';
import type { LabGraph } from '../../crawler/lab/graph.ts';
import { LabPageTexts } from '../../crawler/lab/page-texts.ts';
import { virtualCrawl } from '../../crawler/lab/virtual-crawl.ts';
import { createFocusedStrategy } from '../../crawler/ordering/focused/focused.ts';
import { createStrategy } from '../../crawler/ordering/registry.ts';
import { parseHotPredicate } from '../../crawler/relevance/hot.ts';
import { CrawlJudge } from '../../crawler/relevance/judge.ts';
import type { Db } from '../../crawler/store/database.ts';
import { createClairvoyantStrategy } from './clairvoyant.ts';
import type { Topic } from './topics.ts';

/** What a replay reads of a topic. */
type TopicText = Pick<Topic, 'query' | 'predicate'>;

export type JudgeMode = 'default' | 'hot';

export interface SiteReplay {
  key: string;
  graph: LabGraph;
  texts: LabPageTexts;
  /** Stored pages in the full crawl's fetch order, as lab nodes. */
  fetchOrder: Int32Array;
  /** T: pages with text (2xx HTML). Budgets are shares of it. */
  htmlPages: number;
}

export function loadSiteReplay(key: string, dbPath: string): SiteReplay {
  const db = new Database(dbPath, { readonly: true }) as unknown as Db;
  try {
    const graph = loadLabGraph(db);
    const texts = LabPageTexts.load(db, graph);
    const nodeOf = new Map<number, number>();
    for (let v = 0; v < graph.nodeCount; v++) nodeOf.set(graph.sourceIds === null ? v : (graph.sourceIds[v] as number), v);
    const ids = db.prepare('SELECT url_id FROM pages ORDER BY seq').pluck().all() as number[];
    const fetchOrder = Int32Array.from(ids, (id) => nodeOf.get(id) as number);
    let htmlPages = 0;
    for (let v = 0; v < graph.nodeCount; v++) if (texts.of(v) !== undefined) htmlPages++;
    return { key, graph, texts, fetchOrder, htmlPages };
  } finally {
    (db as unknown as Database.Database).close();
  }
}

/** 1 for each page the topic's predicate calls hot. */
export function truthOf(site: SiteReplay, predicate: string): Uint8Array {
  const rule = parseHotPredicate(predicate);
  const truth = new Uint8Array(site.graph.nodeCount);
  for (let v = 0; v < truth.length; v++) {
    const page = site.texts.of(v);
    if (page !== undefined && rule.isHot({ ...page, relevance: 0 })) truth[v] = 1;
  }
  return truth;
}

function judgeFor(topic: TopicText, mode: JudgeMode): CrawlJudge {
  return new CrawlJudge({ query: topic.query, hotPredicate: mode === 'hot' ? topic.predicate : null, hotThreshold: null });
}

/**
 * The replayed fetch order of one strategy (every stored page fetched counts, whatever it
 * is); `clairvoyant` is the ceiling that knows `truth` (clairvoyant.ts). `without` holds
 * those focused features at 0 (an ablation).
 */
export function replay(site: SiteReplay, topic: TopicText, strategy: string, mode: JudgeMode, maxFetches: number, truth: Uint8Array, without?: readonly string[]): Int32Array {
  const context = { query: topic.query, randomSeed: 1 };
  const ordering =
    strategy === 'clairvoyant'
      ? createClairvoyantStrategy(site.graph, truth)
      : without !== undefined && strategy === 'focused'
        ? createFocusedStrategy(context, { without })
        : createStrategy(strategy, context);
  const crawl = virtualCrawl(site.graph, ordering, maxFetches, {
    verdict: site.texts.liveVerdicts(judgeFor(topic, mode), site.graph.urls),
  });
  return crawl.order;
}

/** Share of the topic's hot pages among the first `fetches` of an order. */
export function pst(order: ArrayLike<number>, truth: Uint8Array, fetches: number): number {
  let hot = 0;
  let found = 0;
  for (let v = 0; v < truth.length; v++) hot += truth[v] as number;
  const n = Math.min(fetches, order.length);
  for (let k = 0; k < n; k++) found += truth[order[k] as number] as number;
  return hot === 0 ? 0 : found / hot;
}

export interface Agreement {
  truthHot: number;
  judgedHot: number;
  precision: number;
  recall: number;
}

/**
 * The default judge's verdicts over the whole site, judged in the full crawl's order and
 * then, as the engine does at the end of a run, against the bar the judge ended with.
 */
export function judgeAgreement(site: SiteReplay, topic: TopicText, truth: Uint8Array): Agreement {
  const judge = judgeFor(topic, 'default');
  const verdict = site.texts.liveVerdicts(judge, site.graph.urls);
  const relevance = new Map<number, number>();
  for (const v of site.fetchOrder) if (site.texts.of(v) !== undefined) relevance.set(v, verdict(v).relevance);
  const bar = judge.movingBar() ?? 0;
  let judgedHot = 0;
  let both = 0;
  let truthHot = 0;
  for (const v of site.fetchOrder) {
    const hot = (relevance.get(v) ?? -1) >= bar;
    if (hot) judgedHot++;
    if (truth[v] === 1) {
      truthHot++;
      if (hot) both++;
    }
  }
  return { truthHot, judgedHot, precision: judgedHot === 0 ? 0 : both / judgedHot, recall: truthHot === 0 ? 0 : both / truthHot };
}
