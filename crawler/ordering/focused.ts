import { contentTerms, termsOfWords } from '../relevance/text.ts';
import { urlTokens } from '../url/tokens.ts';
import { capacityFor, enlarge, IdListPool } from './focused-columns.ts';
import { FAR, HotDistance, type DistanceGraph } from './focused-hot-distance.ts';
import { combineLogRatios, EvidenceCounts, logInterestRatio } from './focused-interest-ratios.ts';
import { LinkGraph } from './focused-link-graph.ts';
import { createQueryMentionTest, createQueryTermSimilarity, type TextSimilarity } from './focused-query-similarity.ts';
import {
  ANCHOR, ANCHOR_SHARE, confidence, DISTANCE, DISTANCE_BONUS, FACTOR_CLIP, IMPORTANCE, importance, LINK_TEXT_WEIGHT, PARENT_HOT,
  PARENT_HOT_BUCKETS, PARENT_WORDS, parentHotBucket, SIBLING_HOT, SIGNAL_NAMES, URL_SIMILARITY, URL_TOKENS, URL_WEIGHT,
} from './focused-signals.ts';
import { TermIds } from './focused-term-ids.ts';
import { MAX_PAGE_TERMS, type LinkEvent, type OrderingContext, type OrderingStrategy, type PageVerdict, type PriorityExplanation, type SignalExplanation } from './strategy.ts';

/*
 * The focused strategy: Cho et al.'s query signals at cold start, Aggarwal et al.'s interest
 * ratios learned online taking over as hot and non-hot pages accumulate (focused-signals.ts
 * has the formula and weights). linked() supplies link text and URLs; the link structure
 * comes from PageVerdict.outlinks, since a page's hotness is only known at fetched().
 *
 * Incremental updates. fetched(P) touches only what P's verdict changes: P's children
 * (in-degree, parent hotness, hot distance, parent words, sibling counts; URLs first seen on
 * P are among them, as P's verdict is news to them) and P's siblings, the children of P's
 * stored parents (sibling counts). Learned tables are read through a snapshot frozen per
 * scoring epoch, so one new page does not move every priority. A new epoch starts after
 * round(fetched / 8) pages, clamped to [rescoreMinPages, rescoreMaxPages], or after
 * rescoreMinPages pages when P(C) moved by a quarter of itself or the confidence by 0.2.
 * Each epoch re-scores every known URL in a lap spread over the next half epoch,
 * ceil(2·URLs / epoch length) URLs per fetched page: on average URLs / epoch length per
 * page. While the frontier grows in step with the crawl that is about eight times the new
 * URLs per page; once epochs reach 512 pages (after 4,096 pages) it is frontier / 512.
 * Parents' word scores are recomputed lazily, once per epoch.
 *
 * Memory: measured about 110-180 bytes per known URL (typed columns with growth slack, the
 * id Map, URL token ids); term and outlink lists only for the last `parentWindow` fetched
 * pages (LinkGraph), at most MAX_PAGE_TERMS + MAX_CHILDREN ids each.
 */

export interface FocusedOptions {
  /** Similarity of a bag of stems to the query; defaults to the share of query terms present. */
  similarity?: TextSimilarity;
  /** Standard deviations a ratio must clear to be used (Aggarwal's t). Default 2. */
  significance?: number;
  /** Bounds on the pages between frontier re-scores. Defaults 16 and 512. */
  rescoreMinPages?: number;
  rescoreMaxPages?: number;
  /** Hot pages, and other pages, after which learned ratios count in full. Defaults 40 and 40. */
  confidentAfterHot?: number;
  confidentAfterCold?: number;
  /** Fetched pages whose outlinks and terms are kept. Default 20,000. */
  parentWindow?: number;
}

const FETCHED = 1;
const HOT = 2;
const CHANGED = 4;

const MAX_PARENTS = 4;
const MAX_CHILDREN = 512;
const MAX_URL_TOKENS = 32;
const MAX_TERMS = 300_000;
const TEXT_CACHE_LIMIT = 50_000;
/**
 * A new epoch once the crawl grew by an eighth since the last one (within the page bounds).
 * On synthetic crawls an eighth harvested 2-5% more hot pages than a quarter, for twice
 * the re-scoring work.
 */
const EPOCH_GROWTH = 8;
/** Re-score early when the base rate moved by this share of itself… */
const MATERIAL_RATE_SHIFT = 0.25;
/** …or the confidence by this much. */
const MATERIAL_CONFIDENCE_SHIFT = 0.2;

/** The learned tables as frozen for one scoring epoch. */
interface LearnedModel {
  epoch: number;
  /** P(C), smoothed: (hot + 1) / (fetched + 2). */
  pHot: number;
  confidence: number;
  words: Float32Array;
  tokens: Float32Array;
  parentHot: Float32Array;
}

export function createFocusedStrategy(context: OrderingContext, options: FocusedOptions = {}): OrderingStrategy {
  return new FocusedStrategy(context, options);
}

class FocusedStrategy implements OrderingStrategy {
  readonly name = 'focused';
  readonly #similarity: TextSimilarity;
  readonly #mayMentionQuery: (text: string) => boolean;
  readonly #t: number;
  readonly #minPages: number;
  readonly #maxPages: number;
  readonly #fullHot: number;
  readonly #fullCold: number;

  readonly #index = new Map<number, number>();
  readonly #termIds = new TermIds(MAX_TERMS);
  readonly #tokens = new IdListPool(MAX_URL_TOKENS);
  readonly #graph: LinkGraph;
  readonly #distance = new HotDistance();
  readonly #distanceGraph: DistanceGraph;
  readonly #wordEvidence = new EvidenceCounts();
  readonly #tokenEvidence = new EvidenceCounts();
  readonly #parentHotEvidence = new EvidenceCounts();
  readonly #textCache = new Map<string, number>();

  #count = 0;
  #capacity = 0;
  #ids = new Float64Array(0);
  #flags = new Uint8Array(0);
  /** Best in-link text similarity (anchor and context), in [0, 1]. */
  #linkSimilarity = new Float32Array(0);
  #urlSimilarity = new Float32Array(0);
  /** Distinct fetched parents, and how many of them are hot. */
  #inDegree = new Uint32Array(0);
  #hotParents = new Uint32Array(0);
  /** Crawled siblings (summed over stored parents), and how many of them are hot. */
  #siblingsCrawled = new Uint32Array(0);
  #siblingsHot = new Uint32Array(0);
  /** For a fetched page: its crawled children, and how many of them are hot. */
  #childrenCrawled = new Uint32Array(0);
  #childrenHot = new Uint32Array(0);
  /** For a fetched page: the combined log ratio of its words, and the epoch it was computed in. */
  #wordScore = new Float32Array(0);
  #wordEpoch = new Uint32Array(0);
  /** The priority last handed out (priority() and takeChanged()). */
  #priority = new Float64Array(0);
  #dirtyMark = new Uint32Array(0);
  #linkMark = new Uint32Array(0);

  #dirty: number[] = [];
  #changed: number[] = [];
  #childScratch = new Int32Array(1024);
  #tokenScratch: number[] = [];
  readonly #parts = new Float64Array(SIGNAL_NAMES.length);

  #serial = 0;
  #fetchedPages = 0;
  #hotPages = 0;
  #model: LearnedModel;
  #pagesSinceEpoch = 0;
  #lapEnd = 0;
  #lapRemaining = 0;
  #lapRate = 0;
  #cursor = 0;

  constructor(context: OrderingContext, options: FocusedOptions) {
    this.#similarity = options.similarity ?? createQueryTermSimilarity(context.query);
    this.#mayMentionQuery = createQueryMentionTest(context.query);
    this.#t = options.significance ?? 2;
    this.#minPages = Math.max(1, options.rescoreMinPages ?? 16);
    this.#maxPages = Math.max(this.#minPages, options.rescoreMaxPages ?? 512);
    this.#fullHot = Math.max(1, options.confidentAfterHot ?? 40);
    this.#fullCold = Math.max(1, options.confidentAfterCold ?? 40);
    this.#graph = new LinkGraph({ maxParents: MAX_PARENTS, maxChildren: MAX_CHILDREN, window: options.parentWindow ?? 20_000 });
    this.#distanceGraph = {
      childrenOf: (page) => this.#graph.childrenOf(page),
      isFetched: (url) => ((this.#flags[url] as number) & FETCHED) !== 0,
      moved: (url) => this.#touch(url),
    };
    this.#model = { epoch: 0, pHot: 0.5, confidence: 0, words: new Float32Array(0), tokens: new Float32Array(0), parentHot: new Float32Array(PARENT_HOT_BUCKETS) };
  }

  linked(link: LinkEvent): void {
    let i = this.#index.get(link.dstId);
    const isNew = i === undefined;
    if (i === undefined) i = this.#add(link.dstId, link.url);
    const current = this.#linkSimilarity[i] as number;
    const similarity = this.#linkTextSimilarity(link.anchor, link.context, current);
    if (similarity <= current) return;
    this.#linkSimilarity[i] = similarity;
    if (isNew) this.#priority[i] = this.#score(i);
    else if (((this.#flags[i] as number) & FETCHED) === 0) this.#refresh(i);
  }

  fetched(page: PageVerdict): void {
    const i = this.#index.get(page.id) ?? this.#add(page.id, '');
    if (((this.#flags[i] as number) & FETCHED) !== 0) return;
    const serial = ++this.#serial;
    const hot = page.hot;
    this.#flags[i] = (this.#flags[i] as number) | FETCHED | (hot ? HOT : 0);
    this.#fetchedPages++;
    if (hot) this.#hotPages++;
    this.#learn(i, hot, serial);

    const n = this.#collectChildren(i, page.outlinks, hot, serial);
    const children = this.#childScratch;
    this.#graph.remember(i, children.slice(0, Math.min(n, this.#graph.maxChildren)), this.#pageTermIds(page.terms));
    this.#wordScore[i] = this.#computeWordScore(i);
    this.#wordEpoch[i] = this.#model.epoch;
    if (hot) this.#distance.offer(i, 0, this.#distanceGraph);

    const childDistance = this.#distance.of(i) + 1;
    const crawled = this.#childrenCrawled[i] as number;
    const crawledHot = this.#childrenHot[i] as number;
    for (let k = 0; k < n; k++) {
      const child = children[k] as number;
      if (((this.#flags[child] as number) & FETCHED) === 0) {
        this.#siblingsCrawled[child]! += crawled;
        this.#siblingsHot[child]! += crawledHot;
        this.#touch(child);
      }
      if (childDistance < FAR) this.#distance.offer(child, childDistance, this.#distanceGraph);
    }
    this.#updateSiblings(i, hot);

    this.#maybeStartEpoch();
    this.#sweep();
    this.#flushDirty();
  }

  priority(id: number): number {
    const i = this.#index.get(id);
    return i === undefined ? 0 : (this.#priority[i] as number);
  }

  takeChanged(): number[] {
    const ids: number[] = [];
    for (const i of this.#changed) {
      const flags = this.#flags[i] as number;
      this.#flags[i] = flags & ~CHANGED;
      if ((flags & FETCHED) === 0) ids.push(this.#ids[i] as number);
    }
    this.#changed.length = 0;
    return ids;
  }

  explain(id: number): PriorityExplanation {
    const i = this.#index.get(id);
    if (i === undefined) return { priority: 0, signals: [{ name: 'unknown', value: 0, contribution: 0, note: 'the strategy has not seen this URL' }] };
    const parts = this.#parts;
    const priority = this.#score(i);
    const m = this.#model;
    const c = m.confidence.toFixed(2);
    const distance = this.#distance.of(i);
    const parents = this.#inDegree[i] as number;
    const hotParents = this.#hotParents[i] as number;
    const siblings = this.#siblingsCrawled[i] as number;
    const hotSiblings = this.#siblingsHot[i] as number;
    const words = this.#parentWordFactor(i);
    const tokens = this.#urlTokenFactor(i);
    const parentRatio = Math.exp(this.#parentHotFactor(i));
    const siblingRatio = Math.exp(this.#siblingFactor(i));
    const signal = (index: number, value: number, note: string): SignalExplanation => ({ name: SIGNAL_NAMES[index] as string, value, contribution: parts[index] as number, note });
    const signals: SignalExplanation[] = [
      signal(ANCHOR, this.#linkSimilarity[i] as number, `best in-link text match to the query (${ANCHOR_SHARE} anchor, ${(1 - ANCHOR_SHARE).toFixed(1)} context) × ${LINK_TEXT_WEIGHT}`),
      signal(URL_SIMILARITY, this.#urlSimilarity[i] as number, `share of query terms among the URL's words × ${URL_WEIGHT}`),
      signal(DISTANCE, distance, distance >= FAR ? 'no hot page within two links' : `${distance} link(s) from a hot page; bonus ${DISTANCE_BONUS[distance]}`),
      signal(PARENT_WORDS, Math.exp(words), `interest ratio of the words of its best fetched parent (${this.#graph.parentCount(i)} stored) × confidence ${c}`),
      signal(URL_TOKENS, Math.exp(tokens), `interest ratio of its URL words (${this.#significantTokens(i)} of ${this.#tokens.length(i)} significant) × confidence ${c}`),
      signal(PARENT_HOT, parents === 0 ? 0 : hotParents / parents, `${hotParents} of ${parents} fetched parents hot; interest ratio ${parentRatio.toFixed(2)} × confidence ${c}`),
      signal(SIBLING_HOT, siblings === 0 ? 0 : hotSiblings / siblings, `${hotSiblings} of ${siblings} crawled siblings hot; interest ratio ${siblingRatio.toFixed(2)} × confidence ${c}`),
      signal(IMPORTANCE, parents, 'backlinks from fetched pages (tie-breaker)'),
      {
        name: 'confidence', value: m.confidence, contribution: 0,
        note: `learned signals × c; c = min(1, hot/${this.#fullHot})·min(1, other/${this.#fullCold}) as of epoch ${m.epoch}; P(C) = ${m.pHot.toFixed(3)}`,
      },
    ];
    const queued = this.#priority[i] as number;
    if (queued !== priority && ((this.#flags[i] as number) & FETCHED) === 0) {
      signals.push({ name: 'queued-priority', value: queued, contribution: 0, note: 'the priority the URL is queued with; the next re-score brings it to the current one' });
    }
    return { priority, signals };
  }

  // --- URL table ---------------------------------------------------------------------

  #add(id: number, url: string): number {
    const i = this.#count++;
    if (this.#count > this.#capacity) this.#grow(capacityFor(this.#capacity, this.#count));
    this.#index.set(id, i);
    this.#ids[i] = id;
    if (url !== '') {
      const terms = termsOfWords(urlTokens(url));
      this.#urlSimilarity[i] = this.#similarity.similarity(terms);
      const ids = this.#tokenScratch;
      ids.length = 0;
      for (const term of terms) {
        const t = this.#termIds.id(term);
        if (t >= 0 && !ids.includes(t)) ids.push(t);
      }
      this.#tokens.set(i, ids);
    }
    this.#priority[i] = this.#score(i);
    return i;
  }

  #grow(capacity: number): void {
    this.#capacity = capacity;
    this.#ids = enlarge(this.#ids, capacity);
    this.#flags = enlarge(this.#flags, capacity);
    this.#linkSimilarity = enlarge(this.#linkSimilarity, capacity);
    this.#urlSimilarity = enlarge(this.#urlSimilarity, capacity);
    this.#inDegree = enlarge(this.#inDegree, capacity);
    this.#hotParents = enlarge(this.#hotParents, capacity);
    this.#siblingsCrawled = enlarge(this.#siblingsCrawled, capacity);
    this.#siblingsHot = enlarge(this.#siblingsHot, capacity);
    this.#childrenCrawled = enlarge(this.#childrenCrawled, capacity);
    this.#childrenHot = enlarge(this.#childrenHot, capacity);
    this.#wordScore = enlarge(this.#wordScore, capacity);
    this.#wordEpoch = enlarge(this.#wordEpoch, capacity);
    this.#priority = enlarge(this.#priority, capacity);
    this.#dirtyMark = enlarge(this.#dirtyMark, capacity);
    this.#linkMark = enlarge(this.#linkMark, capacity);
    this.#tokens.ensure(capacity);
    this.#graph.ensure(capacity);
    this.#distance.ensure(capacity);
  }

  // --- Similarity of link text -------------------------------------------------------

  /** The link's text similarity, or `current` when even a perfect context could not beat it. */
  #linkTextSimilarity(anchor: string, context: string, current: number): number {
    const fromAnchor = ANCHOR_SHARE * this.#textSimilarity(anchor);
    if (fromAnchor + (1 - ANCHOR_SHARE) <= current) return fromAnchor;
    return fromAnchor + (1 - ANCHOR_SHARE) * this.#textSimilarity(context);
  }

  /** Anchors and their contexts repeat across a site's pages (navigation, templates), so similarities are cached. */
  #textSimilarity(text: string): number {
    if (!this.#mayMentionQuery(text)) return 0;
    let similarity = this.#textCache.get(text);
    if (similarity === undefined) {
      similarity = this.#similarity.similarity(contentTerms(text));
      if (this.#textCache.size >= TEXT_CACHE_LIMIT) this.#textCache.clear();
      this.#textCache.set(text, similarity);
    }
    return similarity;
  }

  // --- Learning from a fetched page --------------------------------------------------

  /** Counts the evidence page i showed before it was fetched: parent words, URL tokens, parent hotness. */
  #learn(i: number, hot: boolean, serial: number): void {
    const graph = this.#graph;
    let knownWords = false;
    for (let k = graph.parentCount(i) - 1; k >= 0; k--) {
      const terms = graph.termsOf(graph.parent(i, k));
      if (terms === undefined || terms.length === 0) continue;
      knownWords = true;
      for (let j = 0; j < terms.length; j++) this.#wordEvidence.observeOnce(terms[j] as number, hot, serial);
    }
    if (knownWords) this.#wordEvidence.countPage(hot);
    const tokens = this.#tokens.data;
    const start = this.#tokens.start(i);
    const end = start + this.#tokens.length(i);
    for (let k = start; k < end; k++) this.#tokenEvidence.observe(tokens[k] as number, hot);
    if (end > start) this.#tokenEvidence.countPage(hot);
    const parents = this.#inDegree[i] as number;
    if (parents > 0) {
      this.#parentHotEvidence.observe(parentHotBucket(this.#hotParents[i] as number, parents), hot);
      this.#parentHotEvidence.countPage(hot);
    }
  }

  #pageTermIds(terms: readonly string[]): Int32Array {
    const n = Math.min(terms.length, MAX_PAGE_TERMS);
    const ids = new Int32Array(n);
    let used = 0;
    for (let k = 0; k < n; k++) {
      const id = this.#termIds.id(terms[k] as string);
      if (id >= 0) ids[used++] = id;
    }
    return used === n ? ids : ids.slice(0, used);
  }

  /**
   * Dedupes page i's outlinks into #childScratch and records i as their parent; counts
   * which of them were crawled already (siblings for the others). Returns how many.
   */
  #collectChildren(i: number, outlinks: readonly number[], hot: boolean, serial: number): number {
    if (outlinks.length > this.#childScratch.length) this.#childScratch = new Int32Array(capacityFor(this.#childScratch.length, outlinks.length));
    const children = this.#childScratch;
    let n = 0;
    for (const id of outlinks) {
      const child = this.#index.get(id) ?? this.#add(id, '');
      if (child === i || this.#linkMark[child] === serial) continue;
      this.#linkMark[child] = serial;
      children[n++] = child;
      this.#graph.addParent(child, i);
      this.#inDegree[child]!++;
      if (hot) this.#hotParents[child]!++;
      const flags = this.#flags[child] as number;
      if ((flags & FETCHED) !== 0) {
        this.#childrenCrawled[i]!++;
        if ((flags & HOT) !== 0) this.#childrenHot[i]!++;
      }
    }
    return n;
  }

  /** Page i is a crawled sibling of every other child of its stored parents. */
  #updateSiblings(i: number, hot: boolean): void {
    const graph = this.#graph;
    // Sibling counts move no priority until learned signals count.
    const rescore = this.#model.confidence > 0;
    for (let k = graph.parentCount(i) - 1; k >= 0; k--) {
      const parent = graph.parent(i, k);
      this.#childrenCrawled[parent]!++;
      if (hot) this.#childrenHot[parent]!++;
      const siblings = graph.childrenOf(parent);
      if (siblings === undefined) continue;
      for (let j = 0; j < siblings.length; j++) {
        const sibling = siblings[j] as number;
        if (sibling === i || ((this.#flags[sibling] as number) & FETCHED) !== 0) continue;
        this.#siblingsCrawled[sibling]!++;
        if (hot) this.#siblingsHot[sibling]!++;
        if (rescore) this.#touch(sibling);
      }
    }
  }

  // --- Epochs and re-scoring ---------------------------------------------------------

  #maybeStartEpoch(): void {
    const since = ++this.#pagesSinceEpoch;
    if (since < this.#minPages) return;
    const previous = this.#model;
    const pHot = (this.#hotPages + 1) / (this.#fetchedPages + 2);
    const c = confidence(this.#hotPages, this.#fetchedPages - this.#hotPages, this.#fullHot, this.#fullCold);
    const length = Math.min(this.#maxPages, Math.max(this.#minPages, Math.round(this.#fetchedPages / EPOCH_GROWTH)));
    const material = Math.abs(pHot - previous.pHot) > MATERIAL_RATE_SHIFT * previous.pHot || Math.abs(c - previous.confidence) >= MATERIAL_CONFIDENCE_SHIFT;
    if (since < length && !material) return;
    this.#model = {
      epoch: previous.epoch + 1,
      pHot,
      confidence: c,
      words: this.#wordEvidence.snapshot(this.#t, FACTOR_CLIP, previous.words),
      tokens: this.#tokenEvidence.snapshot(this.#t, FACTOR_CLIP, previous.tokens),
      parentHot: this.#parentHotEvidence.snapshot(this.#t, FACTOR_CLIP, previous.parentHot),
    };
    this.#pagesSinceEpoch = 0;
    // URLs added from now on are scored with the new tables: the lap covers the others.
    this.#lapEnd = this.#count;
    this.#lapRemaining = this.#count;
    this.#lapRate = Math.ceil((2 * this.#count) / length);
  }

  /**
   * The next stretch of the re-score lap: lapEnd consecutive URL indexes modulo lapEnd, from
   * wherever the cursor stands, so an epoch that starts mid-lap still reaches every URL.
   */
  #sweep(): void {
    let k = Math.min(this.#lapRate, this.#lapRemaining);
    this.#lapRemaining -= k;
    while (k-- > 0) {
      if (this.#cursor >= this.#lapEnd) this.#cursor = 0;
      const i = this.#cursor++;
      if (((this.#flags[i] as number) & FETCHED) === 0) this.#touch(i);
    }
  }

  #touch(i: number): void {
    if (this.#dirtyMark[i] === this.#serial) return;
    this.#dirtyMark[i] = this.#serial;
    this.#dirty.push(i);
  }

  #flushDirty(): void {
    for (const i of this.#dirty) if (((this.#flags[i] as number) & FETCHED) === 0) this.#refresh(i);
    this.#dirty.length = 0;
  }

  #refresh(i: number): void {
    const priority = this.#score(i);
    if (priority === this.#priority[i]) return;
    this.#priority[i] = priority;
    const flags = this.#flags[i] as number;
    if ((flags & CHANGED) === 0) {
      this.#flags[i] = flags | CHANGED;
      this.#changed.push(i);
    }
  }

  // --- Scoring -----------------------------------------------------------------------

  /** Fills #parts with each signal's contribution and returns their sum, in SIGNAL_NAMES order. */
  #score(i: number): number {
    const parts = this.#parts;
    const m = this.#model;
    parts[ANCHOR] = LINK_TEXT_WEIGHT * (this.#linkSimilarity[i] as number);
    parts[URL_SIMILARITY] = URL_WEIGHT * (this.#urlSimilarity[i] as number);
    parts[DISTANCE] = DISTANCE_BONUS[this.#distance.of(i)] as number;
    const c = m.confidence;
    parts[PARENT_WORDS] = c === 0 ? 0 : c * this.#parentWordFactor(i);
    parts[URL_TOKENS] = c === 0 ? 0 : c * this.#urlTokenFactor(i);
    parts[PARENT_HOT] = c === 0 ? 0 : c * this.#parentHotFactor(i);
    parts[SIBLING_HOT] = c === 0 ? 0 : c * this.#siblingFactor(i);
    parts[IMPORTANCE] = importance(this.#inDegree[i] as number);
    let sum = 0;
    for (let k = 0; k < parts.length; k++) sum += parts[k] as number;
    return sum;
  }

  /**
   * The word factor of the best of i's stored parents: a URL linked from one topical page
   * and from a navigation page is judged by the topical one (Cho's max over in-links).
   */
  #parentWordFactor(i: number): number {
    const graph = this.#graph;
    const epoch = this.#model.epoch;
    let best = -Infinity;
    for (let k = graph.parentCount(i) - 1; k >= 0; k--) {
      const parent = graph.parent(i, k);
      if (this.#wordEpoch[parent] !== epoch) {
        this.#wordScore[parent] = this.#computeWordScore(parent);
        this.#wordEpoch[parent] = epoch;
      }
      const score = this.#wordScore[parent] as number;
      if (score > best) best = score;
    }
    return best === -Infinity ? 0 : best;
  }

  /** The combined word log ratio of fetched page p; its last value once its terms are forgotten. */
  #computeWordScore(p: number): number {
    const terms = this.#graph.termsOf(p);
    if (terms === undefined) return this.#wordScore[p] as number;
    const ratios = this.#model.words;
    let sum = 0;
    let significant = 0;
    for (let k = 0; k < terms.length; k++) {
      const t = terms[k] as number;
      const r = t < ratios.length ? (ratios[t] as number) : 0;
      if (r !== 0) {
        sum += r;
        significant++;
      }
    }
    return combineLogRatios(sum, significant, FACTOR_CLIP);
  }

  #urlTokenFactor(i: number): number {
    const ratios = this.#model.tokens;
    const tokens = this.#tokens.data;
    const start = this.#tokens.start(i);
    let sum = 0;
    let significant = 0;
    for (let k = start + this.#tokens.length(i) - 1; k >= start; k--) {
      const t = tokens[k] as number;
      const r = t < ratios.length ? (ratios[t] as number) : 0;
      if (r !== 0) {
        sum += r;
        significant++;
      }
    }
    return combineLogRatios(sum, significant, FACTOR_CLIP);
  }

  #significantTokens(i: number): number {
    const ratios = this.#model.tokens;
    const start = this.#tokens.start(i);
    let significant = 0;
    for (let k = start + this.#tokens.length(i) - 1; k >= start; k--) {
      const t = this.#tokens.data[k] as number;
      if (t < ratios.length && ratios[t] !== 0) significant++;
    }
    return significant;
  }

  #parentHotFactor(i: number): number {
    const parents = this.#inDegree[i] as number;
    if (parents === 0) return 0;
    return this.#model.parentHot[parentHotBucket(this.#hotParents[i] as number, parents)] as number;
  }

  /** Aggarwal's sibling ratio: hot crawled siblings / (crawled siblings · P(C)), when significant. */
  #siblingFactor(i: number): number {
    return logInterestRatio(this.#siblingsCrawled[i] as number, this.#siblingsHot[i] as number, this.#model.pHot, this.#t, FACTOR_CLIP);
  }
}
