import { parseHotPredicate } from '../relevance/hot.ts';
import { CrawlJudge } from '../relevance/judge.ts';
import { UsageError } from '../errors.ts';
import { createStrategy, requireStrategy } from '../ordering/registry.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { loadSettings } from '../store/settings-store.ts';
import { checkBudgets, evaluateBudgets, pstCurve } from './evaluate.ts';
import type { LabGraph } from './graph.ts';
import type { LabReport, LabStrategyReport } from '../protocol/lab-report.ts';
import { loadLabGraph } from './load.ts';
import { LabPageTexts } from './page-texts.ts';
import { virtualCrawl, type VirtualCrawlOptions } from './virtual-crawl.ts';
import { documentTypesOf, type DocumentType } from '../parse/documents/document-facts.ts';

/**
 * Which verdicts a replayed strategy learns from: 'truth', the hot pages PST is scored
 * against; or 'live', a fresh judge with the collection's own rule, judging pages in the
 * replayed order as the crawl's judge would (Forager's default mode: the strategy never
 * sees the truth).
 */
export type LabJudge = 'truth' | 'live';

export interface LabOptions {
  strategies: readonly string[];
  /** Fractions of the stored pages, each in (0, 1]. */
  budgets: readonly number[];
  /** A hot threshold G on stored relevance ("0.3") or a Cho-style predicate ("title:wal|body>=3:checkpoint"); default: the stored hot flag. */
  hot?: string;
  /** The driving query; default: the collection's. */
  query?: string;
  /** Default: the collection's random seed. */
  randomSeed?: number;
  /** Points on each PST curve (at most). */
  curvePoints?: number;
  /** Default 'truth'. */
  judge?: LabJudge;
}

export interface LabGraphOptions {
  strategies: readonly string[];
  budgets: readonly number[];
  query: string;
  randomSeed: number;
  /** The document types the replayed crawl read (its settings'): the ordering scores links to them as pages. */
  documents?: readonly DocumentType[];
  curvePoints?: number;
  /** The verdicts each replay learns from, made afresh per strategy; default: the graph's hot flags. */
  verdicts?: () => VirtualCrawlOptions['verdict'];
}

/** Replays the graph once per strategy, up to the largest budget, and evaluates every budget on that one crawl. */
export function runLabOnGraph(graph: LabGraph, options: LabGraphOptions): LabStrategyReport[] {
  for (const name of options.strategies) requireStrategy(name);
  checkBudgets(options.budgets);
  const pages = Math.round(Math.max(...options.budgets) * graph.pageCount);
  return options.strategies.map((name) => {
    const verdict = options.verdicts?.();
    const crawl = virtualCrawl(graph, createStrategy(name, { query: options.query, randomSeed: options.randomSeed, ...(options.documents === undefined ? {} : { documents: options.documents }) }), pages, verdict === undefined ? {} : { verdict });
    return {
      strategy: name,
      budgets: evaluateBudgets(graph, crawl, options.budgets),
      curve: pstCurve(graph, crawl, options.curvePoints ?? 200),
      fetched: crawl.order.length,
      unavailable: crawl.unavailable,
      discovered: crawl.discovered,
      exhausted: crawl.exhausted,
      linksProcessed: crawl.linksProcessed,
      seconds: crawl.seconds,
    };
  });
}

/** `forager lab`: replays a collection's stored crawl under each strategy. The report is plain JSON. */
export function runLab(db: ReadonlyDb, options: LabOptions): LabReport {
  for (const name of options.strategies) requireStrategy(name);
  checkBudgets(options.budgets);
  const threshold = options.hot !== undefined && /^\s*[\d.]+\s*$/.test(options.hot) ? Number(options.hot) : undefined;
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
    throw new UsageError(`the hot threshold is a relevance in [0, 1]: got ${options.hot}`, { hot: options.hot });
  }
  const hotRule = options.hot !== undefined && threshold === undefined ? parseHotPredicate(options.hot) : undefined;
  const settings = loadSettings(db);
  const query = options.query ?? settings?.query ?? '';
  const randomSeed = options.randomSeed ?? settings?.randomSeed ?? 1;
  const graph = loadLabGraph(db, threshold !== undefined ? { hotThreshold: threshold } : hotRule !== undefined ? { hotRule } : {});
  const judgeSettings = { query, hotPredicate: settings?.hotPredicate ?? null, hotThreshold: settings?.hotThreshold ?? null };
  const texts = options.judge === 'live' ? LabPageTexts.load(db, graph) : undefined;
  const results = runLabOnGraph(graph, {
    strategies: options.strategies,
    budgets: options.budgets,
    query,
    randomSeed,
    ...(settings === undefined ? {} : { documents: documentTypesOf(settings.documents) }),
    ...(options.curvePoints === undefined ? {} : { curvePoints: options.curvePoints }),
    ...(texts === undefined ? {} : { verdicts: () => texts.liveVerdicts(new CrawlJudge(judgeSettings), graph.urls) }),
  });
  return {
    collection: { urls: graph.nodeCount, pages: graph.pageCount, hotPages: graph.hotCount, links: graph.linkDst.length, seeds: graph.seeds.length },
    hotRule: hotRule?.describe() ?? (threshold === undefined ? 'stored hot flag' : `relevance >= ${threshold}`),
    judge: options.judge ?? 'truth',
    query,
    randomSeed,
    results,
  };
}
