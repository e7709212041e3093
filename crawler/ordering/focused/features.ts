/*
 * The features of an unfetched URL that the link model weighs, with their prior weights
 * (log-odds units, so +0.69 doubles the odds) and what they mean. Query features are in
 * [0, 1] (share of the query's weight named, query-matcher.ts); yields are the log-odds of
 * a smoothed mean grade of fetched pages minus the log-odds of the crawl's mean grade
 * (yields.ts): with the mean at 0.1, one hot sibling is worth more than a shift of 0.2.
 *
 * The priors make the first page's order a best-first crawl on anchor text and URL words,
 * as a naive crawler would, with hubs early; the model then moves them (online-model.ts).
 * Among the graph features, the mean verdict of a URL's parents weighs more than having one
 * hot parent (a hot index page links to everything), and a copy of a relevant page in
 * another language weighs like a strong anchor: on the tuning half of bench/focus these
 * priors (parent-mean 1.5, hot-parent 1, copies 4, against 0, 2 and 2) raised the mean
 * PST at 10% from 0.55 to 0.60 in replays, and on the check half from 0.52 to 0.58.
 */

import { MAX_TERMS } from './query-matcher.ts';

export interface FeatureSpec {
  name: string;
  prior: number;
  note: string;
}

export const FEATURES = [
  { name: 'bias', prior: -2, note: 'constant' },
  { name: 'anchor-best', prior: 4, note: 'the best in-link anchor\'s match to the query' },
  { name: 'anchor-sum', prior: 2, note: 'ln(1 + matches summed over every in-link anchor)' },
  { name: 'context', prior: 1, note: 'ln(1 + matches of the words around each in-link)' },
  { name: 'url', prior: 2, note: 'the URL\'s words\' match to the query (identifiers split)' },
  { name: 'index-body', prior: 1, note: 'the query\'s match to the words the site\'s search index lists for the page' },
  { name: 'index-title', prior: 4, note: 'the query\'s match to the page title in the site\'s search index' },
  { name: 'expansion', prior: 1, note: 'share of the feedback terms from hot pages that its anchors or URL name' },
  { name: 'hot-parent', prior: 1, note: 'linked from a page judged hot' },
  { name: 'near-hot', prior: 0.5, note: 'two links from a page judged hot' },
  { name: 'parent-max', prior: 1, note: 'the best graded verdict of its fetched parents' },
  { name: 'parent-mean', prior: 1.5, note: 'the mean graded verdict of its fetched parents' },
  { name: 'siblings', prior: 1, note: 'yield of its parents\' other fetched children' },
  { name: 'folder', prior: 1, note: 'yield of fetched pages in its folder' },
  { name: 'site', prior: 4, note: 'yield of fetched pages of its site: where the topic lives, when several sites are crawled' },
  { name: 'copies', prior: 4, note: 'yield of fetched pages that share its path but for one part (language or version copies)' },
  { name: 'hub', prior: 3, note: 'its name or anchor says it lists pages (index, contents, site map): fetched early for the anchors it shows' },
  { name: 'in-links', prior: 0.25, note: 'ln(1 + fetched pages that link to it)' },
  { name: 'download', prior: -4, note: 'its extension says it is not a web page' },
  { name: 'resource', prior: 10, note: 'a site resource that lists pages (sitemap, search index)' },
  { name: 'seed', prior: 10, note: 'a seed the user gave: every seeded site is entered before any is explored (an order, not evidence: never learnt)' },
] as const satisfies readonly FeatureSpec[];

/**
 * Per query term, learnt per crawl: whether an in-link anchor names it, and whether the URL
 * does. The query features above weigh every term by its rarity; these let the crawl learn
 * that one term (mod of mod_ssl, write of write-ahead) keeps leading to cold pages while
 * another leads to hot ones. Prior 0: the term's share of the query match says it first.
 */
export const TERM_FEATURES: readonly FeatureSpec[] = [
  ...Array.from({ length: MAX_TERMS }, (_, i) => ({ name: `anchor-term-${i}`, prior: 0, note: `an in-link anchor names query term ${i + 1}` })),
  ...Array.from({ length: MAX_TERMS }, (_, i) => ({ name: `url-term-${i}`, prior: 0, note: `its URL's words name query term ${i + 1}` })),
];

/** Where the per-term features start: anchor terms, then URL terms. */
export const ANCHOR_TERMS = FEATURES.length;
export const URL_TERMS = FEATURES.length + MAX_TERMS;

export const ALL_FEATURES: readonly FeatureSpec[] = [...FEATURES, ...TERM_FEATURES];
export const FEATURE_COUNT = ALL_FEATURES.length;

type FeatureName = (typeof FEATURES)[number]['name'];

function indexOf(name: FeatureName): number {
  return FEATURES.findIndex((f) => f.name === name);
}

export const F = {
  bias: indexOf('bias'),
  anchorBest: indexOf('anchor-best'),
  anchorSum: indexOf('anchor-sum'),
  context: indexOf('context'),
  url: indexOf('url'),
  indexBody: indexOf('index-body'),
  indexTitle: indexOf('index-title'),
  expansion: indexOf('expansion'),
  hotParent: indexOf('hot-parent'),
  nearHot: indexOf('near-hot'),
  parentMax: indexOf('parent-max'),
  parentMean: indexOf('parent-mean'),
  siblings: indexOf('siblings'),
  folder: indexOf('folder'),
  site: indexOf('site'),
  copies: indexOf('copies'),
  hub: indexOf('hub'),
  inLinks: indexOf('in-links'),
  download: indexOf('download'),
  resource: indexOf('resource'),
  seed: indexOf('seed'),
} as const;

export const PRIOR_WEIGHTS: readonly number[] = ALL_FEATURES.map((f) => f.prior);
