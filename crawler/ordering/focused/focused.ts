import { UsageError } from '../../errors.ts';
import { urlTokens } from '../../url/tokens.ts';
import { ChangeSet } from '../crawl-graph.ts';
import type { UrlHint } from '../../parse/url-kind.ts';
import type { LinkEvent, OrderingContext, OrderingStrategy, PageVerdict } from '../strategy.ts';
import type { PriorityExplanation, SignalExplanation } from '../../protocol/explanation.ts';
import { capacityFor } from '../columns.ts';
import { enlarge } from '../../memory/enlarge.ts';
import { DELAYED_WEIGHT, DISCOUNT, PastFeatures } from './delayed-credit.ts';
import { ExpansionTerms } from './expansion.ts';
import { ALL_FEATURES, ANCHOR_TERMS, F, FEATURE_COUNT, FEATURES, PRIOR_WEIGHTS, URL_TERMS } from './features.ts';
import { FAR, HotDistance, type DistanceGraph } from './hot-distance.ts';
import { hubAnchor, hubUrl, looksLikeDownload } from './hubs.ts';
import { LinkGraph } from './link-graph.ts';
import { OnlineLogistic, sparseSum } from './online-model.ts';
import { SparseWeights, type SparseWeightReader } from './sparse-weights.ts';
import { MAX_TERMS, QueryMatcher } from './query-matcher.ts';
import { TemplateStats } from './template-stats.ts';
import { SiteYields } from './site-yields.ts';
import { smoothedYield } from './yields.ts';
import { CHANGED, DIRTY, DOWNLOAD, FETCHED, HOT, HUB, KNOWN, LISTED, ODD_EPOCH, RESOURCE, SEED, UrlEvidence, urlWordTokens } from './url-evidence.ts';
import type { DocumentType } from '../../parse/documents/document-facts.ts';

/*
 * The focused strategy: one link model learned online (online-model.ts) over the evidence
 * a crawl has about each unfetched URL (features.ts): its anchors and their surroundings
 * summed over every in-link, its URL's words, what a site search index says of it, the
 * graded verdicts of its fetched parents and siblings, its distance from hot pages, and
 * the yield of fetched pages that share its folder or are its copies in another language
 * (url-templates.ts). The priority is the model's log-odds that the page is relevant;
 * explain() lists each feature's contribution, and they add up to it.
 *
 * A parent's verdict counts by how selective its links are (#lentGrade): a book index or
 * glossary is hot because it names everything, and lends each of its hundreds of children
 * little. A fetched page counts in its URL templates as the better of its own grade and its
 * delayed credit (half its best child's grade), so a hub's copies in other languages rise
 * once the hub led somewhere.
 *
 * Learning: every fetched page is one example, with the features it had just before it
 * was fetched and the judge's grade as the target; its fetched parents are learnt again
 * towards a share of that grade (delayed-credit.ts). Scoring uses the weights frozen at
 * the start of an epoch, so one page does not move every priority: an epoch ends after
 * round(fetched / 8) pages, clamped to [MIN_EPOCH, MAX_EPOCH], and every known URL is
 * re-scored with the new weights in a lap spread over the next half epoch. With more than
 * 16,384 known URLs the cap grows with them (LAP_PER_PAGE), so that the lap's cost per page
 * stays bounded: a crawl of a million URLs re-scores each one per epoch, not per 128 pages.
 *
 * Incremental updates, bounded per page: fetched(P) re-scores P's children (parents, hot
 * distance), the children of P's stored parents (siblings) and, when the rounded yield of
 * one of P's templates moved (template-stats.ts), the URLs with that template. A URL's
 * features change only in those events, so its queued priority is always what its
 * features and its epoch's model give. Ties go to the URL discovered first (the callers'
 * heaps).
 */

export interface FocusedOptions {
  /** Fetched pages whose outlinks and features are kept for sibling updates and delayed credit. Default 20,000. */
  window?: number;
  /**
   * Features held at 0, to measure what each carries (bench:focus --ablation): names from
   * features.ts, or `anchor-term` and `url-term` for every per-term feature of that kind.
   */
  without?: readonly string[];
  /** The link model to learn into and score by, shared with other crawls (a cluster worker's shards); default: one of its own. */
  model?: OnlineLogistic;
}

/** A link model at its priors, for crawls that learn together (FocusedOptions.model). */
export function createLinkModel(): OnlineLogistic {
  return new OnlineLogistic(PRIOR_WEIGHTS);
}

/** The feature indices a `without` list names; an unknown name is a usage error. */
function heldFeatures(names: readonly string[]): number[] {
  return names.flatMap((name) => {
    if (name === 'anchor-term') return Array.from({ length: MAX_TERMS }, (_, i) => ANCHOR_TERMS + i);
    if (name === 'url-term') return Array.from({ length: MAX_TERMS }, (_, i) => URL_TERMS + i);
    const j = FEATURES.findIndex((f) => f.name === name);
    if (j < 0) throw new UsageError(`unknown focused feature "${name}"; choose from ${[...FEATURES.map((f) => f.name), 'anchor-term', 'url-term'].join(', ')}`, { feature: name });
    return [j];
  });
}

const MAX_PARENTS = 3;
/**
 * A page's verdict says less about each of its links the more links it has: past this
 * many, a parent lends each child its grade scaled by SELECTIVE_LINKS / links (pulled
 * towards the crawl's mean). A page linking to hundreds (an index) says little about each.
 */
const SELECTIVE_LINKS = 128;
/** A hot page with links this unselective (4 × SELECTIVE_LINKS links or more) makes no hot parent. */
const HOT_SOURCE_SELECTIVITY = 0.25;

function selectivity(links: number): number {
  return links <= SELECTIVE_LINKS ? 1 : SELECTIVE_LINKS / links;
}
const MAX_CHILDREN = 512;
const MIN_EPOCH = 8;
const MAX_EPOCH = 256;
const EPOCH_GROWTH = 8;
/**
 * The re-score lap visits every known id in half an epoch. Past MAX_EPOCH × LAP_PER_PAGE / 2
 * known ids (16,384), the cap on an epoch's length grows with them, so the lap costs at most
 * this many ids a page however large the frontier, instead of a share of the frontier per page.
 */
const LAP_PER_PAGE = 128;
/** A user's label counts as this many of the judge's verdicts. */
const LABEL_WEIGHT = 5;

interface FrozenModel {
  epoch: number;
  weights: Float64Array;
  sparse: SparseWeightReader;
  meanGrade: number;
}

export function createFocusedStrategy(context: OrderingContext, options: FocusedOptions = {}): OrderingStrategy {
  return new FocusedStrategy(context, options);
}

class FocusedStrategy implements OrderingStrategy {
  readonly name = 'focused';
  readonly #matcher: QueryMatcher;
  /** The document types the crawl reads: links to them are not downloads. */
  readonly #documents: readonly DocumentType[];
  readonly #expansion: ExpansionTerms;
  readonly #model: OnlineLogistic;
  /**
   * What scoring uses: the model's weights and the crawl's mean grade as of the start of
   * the epoch, and those of the epoch before, for URLs the re-score lap has not reached.
   */
  #frozen: FrozenModel = { epoch: 0, weights: Float64Array.from(PRIOR_WEIGHTS), sparse: new SparseWeights(), meanGrade: 0.5 };
  #previous: FrozenModel = this.#frozen;
  readonly #urls = new UrlEvidence();
  readonly #graph: LinkGraph;
  readonly #past: PastFeatures;
  readonly #distance = new HotDistance();
  readonly #distanceGraph: DistanceGraph;
  readonly #templates = new TemplateStats();
  readonly #sites = new SiteYields();
  readonly #changes = new ChangeSet();
  readonly #x = new Float64Array(FEATURE_COUNT);
  readonly #heldAtZero: readonly number[];
  /** URLs to re-score at the end of the event, #dirtyCount of them. */
  #dirty = new Int32Array(1024);
  #dirtyCount = 0;
  #children = new Int32Array(1024);
  /** The judge's grade of each labelled page, restored when its label is cleared. */
  readonly #judgedGrade = new Map<number, number>();

  #fetchedPages = 0;
  #gradeSum = 0;
  #pagesSinceEpoch = 0;
  #lapEnd = 0;
  #lapRemaining = 0;
  #lapRate = 0;
  #cursor = 0;

  constructor(context: OrderingContext, options: FocusedOptions) {
    this.#model = options.model ?? createLinkModel();
    // A shared model may have learnt already: this crawl starts scoring by what it knows.
    if (options.model !== undefined) {
      this.#frozen = this.#previous = { epoch: 0, weights: Float64Array.from(this.#model.weights), sparse: this.#model.sparseWeights.copy(), meanGrade: 0.5 };
    }
    this.#matcher = new QueryMatcher(context.query);
    this.#documents = context.documents ?? [];
    this.#expansion = new ExpansionTerms(this.#matcher.queryTerms);
    this.#heldAtZero = heldFeatures(options.without ?? []);
    const window = options.window ?? 20_000;
    this.#graph = new LinkGraph({ maxParents: MAX_PARENTS, maxChildren: MAX_CHILDREN, window });
    this.#past = new PastFeatures(window);
    this.#distanceGraph = {
      childrenOf: (page) => this.#graph.childrenOf(page),
      isFetched: (url) => this.#urls.has(url, FETCHED),
      moved: (url) => this.#touch(url),
    };
  }

  linked(link: LinkEvent): void {
    const id = link.dstId;
    const urls = this.#urls;
    const isNew = !urls.has(id, KNOWN);
    if (isNew) this.#add(id, link.url, link.kind !== undefined && link.kind !== 'page');
    if (urls.has(id, FETCHED)) return;
    let changed = false;
    // Seeds first: with several sites seeded, one site's search index must not bury another site's entry page.
    if (link.srcId === null && link.depth === 0 && !urls.has(id, SEED)) {
      urls.set(id, SEED);
      changed = true;
    }
    // A parent in another shard of a cluster: its grade is evidence like a fetched parent's here.
    if (link.srcId === null && link.sourceGrade !== undefined) {
      urls.addParent(id, link.sourceGrade);
      changed = true;
    }
    if (!urls.has(id, HUB) && hubAnchor(link.anchor)) {
      urls.set(id, HUB);
      changed = true;
    }
    const anchor = this.#matcher.match(link.anchor);
    const context = this.#matcher.match(link.context).score;
    if (anchor.score > 0) {
      urls.raiseAnchorBest(id, anchor.score);
      urls.anchorSum[id]! += anchor.score;
      urls.anchorTerms[id]! |= anchor.terms;
      changed = true;
    }
    if (context > 0) {
      urls.contextSum[id]! += context;
      changed = true;
    }
    if (urls.raiseExpansion(id, this.#matcher.matchExpansion(link.anchor))) changed = true;
    // A new URL's priority is read by the caller right after this call: it is not a change.
    if (isNew) urls.priority[id] = this.#score(id);
    else if (changed) this.#refresh(id);
  }

  hinted(hint: UrlHint): void {
    const id = hint.id;
    if (!this.#urls.has(id, KNOWN) || this.#urls.has(id, FETCHED)) return;
    const body = hint.terms === undefined ? 0 : this.#matcher.matchTerms(new Set(hint.terms));
    const title = hint.titleTerms === undefined ? 0 : this.#matcher.matchTerms(new Set(hint.titleTerms));
    if (this.#urls.raiseIndex(id, body, title)) this.#refresh(id);
  }

  fetched(page: PageVerdict): void {
    const id = page.id;
    const urls = this.#urls;
    if (!urls.has(id, KNOWN)) this.#add(id, '', false);
    if (urls.has(id, FETCHED)) return;
    const grade = page.grade ?? (page.hot ? 1 : 0);
    this.#learn(id, grade);
    urls.set(id, page.hot ? FETCHED | HOT : FETCHED);
    urls.setGrade(id, grade);
    this.#creditParents(id, grade);
    this.#fetchedPages++;
    this.#gradeSum += grade;
    for (const acronym of page.acronyms ?? []) this.#matcher.addSynonym(acronym.term, acronym.longForm);
    this.#matcher.observe(page.terms);
    this.#expansion.observe(page.terms, page.hot);

    const n = this.#collectChildren(id, page.outlinks, grade, page.hot);
    this.#graph.remember(id, this.#children, n);
    // A list page (a glossary, a book index) is hot because it names everything: it is no hot parent.
    if (page.hot && selectivity(n) >= HOT_SOURCE_SELECTIVITY) this.#distance.offer(id, 0, this.#distanceGraph);
    const childDistance = this.#distance.of(id) + 1;
    if (childDistance < FAR) for (let k = 0; k < n; k++) this.#distance.offer(this.#children[k] as number, childDistance, this.#distanceGraph);
    this.#updateSiblings(id, grade);
    this.#templates.record(id, urls.templateGrade(id));
    this.#sites.record(id, grade);
    this.#templates.forEachMoved(id, this.#frozen.meanGrade, this.#touchUnfetched);

    this.#maybeStartEpoch();
    this.#sweep();
    this.#flushDirty();
  }

  labelled(id: number, relevant: boolean | null): void {
    const urls = this.#urls;
    if (!urls.has(id, FETCHED)) return;
    if (!this.#judgedGrade.has(id)) this.#judgedGrade.set(id, urls.grade(id));
    const judged = this.#judgedGrade.get(id) as number;
    const grade = relevant === null ? judged : relevant ? 1 : 0;
    if (relevant === null) this.#judgedGrade.delete(id);
    const x = this.#past.kept(id);
    if (x !== undefined) this.#model.learn(x, urls.tokens(id), grade, LABEL_WEIGHT);
    this.#regrade(id, grade, relevant ?? judged >= 0.5);
    this.#flushDirty();
  }

  priority(id: number): number {
    return id < this.#urls.capacity ? (this.#urls.priority[id] as number) : 0;
  }

  takeChanged(): number[] {
    const ids = this.#changes.take();
    for (const id of ids) this.#urls.clear(id, CHANGED);
    return ids.filter((id) => !this.#urls.has(id, FETCHED));
  }

  explain(id: number): PriorityExplanation {
    const urls = this.#urls;
    if (!urls.has(id, KNOWN)) return { priority: 0, signals: [{ name: 'unknown', value: 0, contribution: 0, note: 'the strategy has not seen this URL' }] };
    const fetched = urls.has(id, FETCHED);
    const model = fetched ? this.#frozen : this.#modelOf(id);
    const x = this.#features(id, model);
    const signals: SignalExplanation[] = [];
    ALL_FEATURES.forEach((f, j) => {
      const contribution = (model.weights[j] as number) * (x[j] as number);
      if (x[j] !== 0) signals.push({ name: this.#featureName(j, f.name), value: x[j] as number, contribution, note: `${f.note}; weight ${(model.weights[j] as number).toFixed(2)} (prior ${f.prior})` });
    });
    const tokens = urls.tokens(id);
    const words = sparseSum(tokens, model.sparse);
    if (words !== 0) signals.push({ name: 'url-words', value: tokens.length, contribution: words, note: 'learnt weights of the words of its file name' });
    signals.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
    signals.push({
      name: 'model',
      value: this.#model.examples,
      contribution: 0,
      note: `weights of epoch ${model.epoch}, learnt from the pages fetched before it (${this.#model.examples} examples so far); mean grade ${model.meanGrade.toFixed(3)}`,
    });
    const priority = fetched ? signals.reduce((sum, s) => sum + s.contribution, 0) : (urls.priority[id] as number);
    return { priority, signals };
  }

  // --- URL table -----------------------------------------------------------------------

  #add(id: number, url: string, resource: boolean): void {
    const urls = this.#urls;
    if (urls.fit(id)) {
      this.#graph.ensure(urls.capacity);
      this.#distance.ensure(urls.capacity);
      this.#templates.ensure(urls.capacity);
      this.#sites.ensure(urls.capacity);
    }
    let flags = KNOWN;
    if (resource) flags |= RESOURCE;
    if (url !== '') {
      const match = this.#matcher.matchWords(urlTokens(url));
      urls.setUrlMatch(id, match.score);
      urls.urlTerms[id] = match.terms;
      urls.raiseExpansion(id, this.#matcher.matchExpansion(url));
      urls.setTokens(id, urlWordTokens(url));
      this.#templates.add(id, url);
      this.#sites.add(id, url);
      if (looksLikeDownload(url, this.#documents)) flags |= DOWNLOAD;
      if (hubUrl(url)) flags |= HUB;
    }
    urls.flags[id] = flags;
    urls.priority[id] = this.#score(id);
  }

  // --- Learning from a fetched page ----------------------------------------------------

  /** One example: the features the page had before it was fetched, its grade as the target. */
  #learn(id: number, grade: number): void {
    if (this.#urls.has(id, RESOURCE)) return;
    const x = this.#features(id, this.#frozen);
    // Being a seed says when to fetch a page, not whether it is relevant: the model does not learn from it.
    x[F.seed] = 0;
    this.#model.learn(x, this.#urls.tokens(id), grade);
    this.#past.keep(id, x);
  }

  /** Delayed credit: the page's fetched parents are learnt again, towards DISCOUNT × its grade. */
  #creditParents(id: number, grade: number): void {
    const graph = this.#graph;
    const urls = this.#urls;
    for (let k = graph.parentCount(id) - 1; k >= 0; k--) {
      const parent = graph.parent(id, k);
      const x = this.#past.creditable(parent, DISCOUNT * grade, urls.grade(parent));
      if (x !== undefined) this.#model.learn(x, urls.tokens(parent), DISCOUNT * grade, DELAYED_WEIGHT);
      // A hub's language or version copies are worth what it led to, not only what it says itself.
      this.#changeTemplateGrade(parent, () => urls.raiseCredit(parent, DISCOUNT * grade));
    }
  }

  /** Applies a change to a fetched page's grade or credit, and moves its templates' yields by what it changed. */
  #changeTemplateGrade(page: number, change: () => void): void {
    const urls = this.#urls;
    const before = urls.templateGrade(page);
    change();
    const delta = urls.templateGrade(page) - before;
    if (delta === 0) return;
    this.#templates.regrade(page, delta);
    this.#templates.forEachMoved(page, this.#frozen.meanGrade, this.#touchUnfetched);
  }

  /**
   * Dedupes the page's outlinks into #children and counts the page as their parent, its
   * verdict diluted by how selective its links are (selectivity()). Returns how many.
   */
  #collectChildren(page: number, outlinks: readonly number[], grade: number, hot: boolean): number {
    if (outlinks.length > this.#children.length) this.#children = new Int32Array(capacityFor(this.#children.length, outlinks.length));
    const urls = this.#urls;
    let n = 0;
    for (const child of outlinks) {
      if (child === page) continue;
      if (!urls.has(child, KNOWN)) this.#add(child, '', false);
      if (urls.has(child, LISTED)) continue;
      urls.set(child, LISTED);
      this.#children[n++] = child;
    }
    const lent = this.#lentGrade(grade, n);
    for (let k = 0; k < n; k++) {
      const child = this.#children[k] as number;
      urls.clear(child, LISTED);
      this.#graph.addParent(child, page);
      urls.addParent(child, lent);
      if (urls.has(child, FETCHED)) {
        urls.countChild(page, urls.grade(child));
      } else {
        // The page's children fetched so far are siblings of this one.
        urls.countSiblings(child, urls.children[page] as number, urls.childGradeSum[page] as number);
        this.#touch(child);
      }
    }
    if (hot && selectivity(n) >= HOT_SOURCE_SELECTIVITY) for (let k = 0; k < n; k++) this.#touch(this.#children[k] as number);
    return n;
  }

  /** The verdict a page lends each of its n links: its grade, pulled towards the crawl's mean as n grows past SELECTIVE_LINKS. */
  #lentGrade(grade: number, n: number): number {
    const mean = this.#frozen.meanGrade;
    return mean + (grade - mean) * selectivity(n);
  }

  /** A fetched page's grade changed (a label): its children, its templates and the crawl's mean follow. */
  #regrade(page: number, grade: number, hot: boolean): void {
    const urls = this.#urls;
    const delta = grade - urls.grade(page);
    this.#changeTemplateGrade(page, () => urls.setGrade(page, grade));
    this.#gradeSum += delta;
    const children = this.#graph.childrenOf(page) ?? [];
    const lentShare = selectivity(children.length);
    if (hot) {
      urls.set(page, HOT);
      if (lentShare >= HOT_SOURCE_SELECTIVITY) this.#distance.offer(page, 0, this.#distanceGraph);
    } else {
      urls.clear(page, HOT);
    }
    const lent = this.#lentGrade(grade, children.length);
    for (const child of children) {
      if (urls.has(child, FETCHED)) continue;
      urls.regradeParent(child, delta * lentShare, lent);
      this.#touch(child);
    }
    this.#sites.regrade(page, delta);
  }

  /** The page is a crawled sibling of every other child of its stored parents. */
  #updateSiblings(page: number, grade: number): void {
    const graph = this.#graph;
    const urls = this.#urls;
    for (let k = graph.parentCount(page) - 1; k >= 0; k--) {
      const parent = graph.parent(page, k);
      urls.countChild(parent, grade);
      const siblings = graph.childrenOf(parent);
      if (siblings === undefined) continue;
      for (let j = 0; j < siblings.length; j++) {
        const sibling = siblings[j] as number;
        if (sibling === page || urls.has(sibling, FETCHED)) continue;
        urls.countSiblings(sibling, 1, grade);
        this.#touch(sibling);
      }
    }
  }

  /** The mean grade of the pages fetched so far, with one page of 0.5 as a prior. */
  #meanGrade(): number {
    return (this.#gradeSum + 0.5) / (this.#fetchedPages + 1);
  }

  /** The frozen model a URL's queued priority was computed with. */
  #modelOf(id: number): FrozenModel {
    return this.#urls.has(id, ODD_EPOCH) === (this.#frozen.epoch % 2 === 1) ? this.#frozen : this.#previous;
  }

  // --- Epochs and re-scoring -------------------------------------------------------------

  #maybeStartEpoch(): void {
    const since = ++this.#pagesSinceEpoch;
    const longest = Math.max(MAX_EPOCH, Math.ceil((2 * this.#urls.end) / LAP_PER_PAGE));
    const length = Math.min(longest, Math.max(MIN_EPOCH, Math.round(this.#fetchedPages / EPOCH_GROWTH)));
    if (since < length) return;
    this.#previous = this.#frozen;
    this.#frozen = {
      epoch: this.#frozen.epoch + 1,
      weights: Float64Array.from(this.#model.weights),
      sparse: this.#model.sparseWeights.copy(),
      meanGrade: this.#meanGrade(),
    };
    this.#sites.freeze(this.#frozen.epoch);
    this.#matcher.refresh();
    this.#expansion.refresh();
    this.#matcher.setExpansion(this.#expansion.terms);
    this.#pagesSinceEpoch = 0;
    this.#lapEnd = this.#urls.end;
    this.#lapRemaining = this.#urls.end;
    this.#lapRate = Math.ceil((2 * this.#urls.end) / length);
  }

  /** The next stretch of the re-score lap over the ids known when the epoch began. */
  #sweep(): void {
    let k = Math.min(this.#lapRate, this.#lapRemaining);
    this.#lapRemaining -= k;
    while (k-- > 0) {
      if (this.#cursor >= this.#lapEnd) this.#cursor = 0;
      const id = this.#cursor++;
      if (this.#urls.has(id, KNOWN) && !this.#urls.has(id, FETCHED)) this.#touch(id);
    }
  }

  /** Touches a URL still to be fetched; false for a fetched one, which no re-score concerns again. */
  readonly #touchUnfetched = (id: number): boolean => {
    if (this.#urls.has(id, FETCHED)) return false;
    this.#touch(id);
    return true;
  };

  #touch(id: number): void {
    if (this.#urls.has(id, DIRTY)) return;
    this.#urls.set(id, DIRTY);
    if (this.#dirtyCount === this.#dirty.length) this.#dirty = enlarge(this.#dirty, 2 * this.#dirty.length);
    this.#dirty[this.#dirtyCount++] = id;
  }

  #flushDirty(): void {
    // In id order, a page's hundreds of re-scores (a folder, siblings) read the per-URL columns
    // in runs rather than a cache miss each; a score depends on no other, so any order does.
    const dirty = this.#dirty.subarray(0, this.#dirtyCount).sort();
    for (let k = 0; k < dirty.length; k++) {
      const id = dirty[k] as number;
      this.#urls.clear(id, DIRTY);
      this.#refresh(id);
    }
    this.#dirtyCount = 0;
  }

  #refresh(id: number): void {
    const urls = this.#urls;
    if (urls.has(id, FETCHED)) return;
    const priority = this.#score(id);
    if (priority === urls.priority[id]) return;
    urls.priority[id] = priority;
    if (!urls.has(id, CHANGED)) {
      urls.set(id, CHANGED);
      this.#changes.add(id);
    }
  }

  /**
   * The URL's priority with the current epoch's model, noting which epoch that is. It is the
   * model's score of #features, to the bit: w·x summed in feature order, then the URL words'
   * weights; a feature that is 0 adds nothing and is skipped, so most of a URL's features
   * cost neither a write nor a multiplication (a crawl re-scores a few URLs per link).
   */
  #score(id: number): number {
    const urls = this.#urls;
    const model = this.#frozen;
    if (model.epoch % 2 === 1) urls.set(id, ODD_EPOCH);
    else urls.clear(id, ODD_EPOCH);
    if (this.#heldAtZero.length > 0) return this.#model.score(this.#features(id, model), urls.tokens(id), model.weights, model.sparse);
    const w = model.weights;
    const mean = model.meanGrade;
    const parents = urls.parents[id] as number;
    const distance = this.#distance.of(id);
    const flags = urls.flags[id] as number;
    let z = 0;
    z += w[F.bias] as number;
    let v = urls.anchorBest(id);
    if (v !== 0) z += (w[F.anchorBest] as number) * v;
    v = urls.anchorSum[id] as number;
    if (v !== 0) z += (w[F.anchorSum] as number) * Math.log1p(v);
    v = urls.contextSum[id] as number;
    if (v !== 0) z += (w[F.context] as number) * Math.log1p(v);
    v = urls.urlMatch(id);
    if (v !== 0) z += (w[F.url] as number) * v;
    v = urls.indexBody(id);
    if (v !== 0) z += (w[F.indexBody] as number) * v;
    v = urls.indexTitle(id);
    if (v !== 0) z += (w[F.indexTitle] as number) * v;
    v = urls.expansion(id);
    if (v !== 0) z += (w[F.expansion] as number) * v;
    if (distance === 1) z += w[F.hotParent] as number;
    if (distance === 2) z += w[F.nearHot] as number;
    v = urls.parentGradeMax(id);
    if (v !== 0) z += (w[F.parentMax] as number) * v;
    v = parents === 0 ? 0 : (urls.parentGradeSum[id] as number) / parents;
    if (v !== 0) z += (w[F.parentMean] as number) * v;
    v = smoothedYield(urls.siblings[id] as number, urls.siblingGradeSum[id] as number, mean);
    if (v !== 0) z += (w[F.siblings] as number) * v;
    v = this.#templates.folderYield(id, mean);
    if (v !== 0) z += (w[F.folder] as number) * v;
    v = this.#sites.yieldOf(id, model.epoch);
    if (v !== 0) z += (w[F.site] as number) * v;
    v = this.#templates.copyYield(id, mean);
    if (v !== 0) z += (w[F.copies] as number) * v;
    if ((flags & HUB) !== 0) z += w[F.hub] as number;
    if (parents !== 0) z += (w[F.inLinks] as number) * Math.log1p(parents);
    if ((flags & DOWNLOAD) !== 0) z += w[F.download] as number;
    if ((flags & RESOURCE) !== 0) z += w[F.resource] as number;
    if ((flags & SEED) !== 0) z += w[F.seed] as number;
    for (let terms = urls.anchorTerms[id] as number, i = 0; terms !== 0; terms >>= 1, i++) if ((terms & 1) !== 0) z += w[ANCHOR_TERMS + i] as number;
    for (let terms = urls.urlTerms[id] as number, i = 0; terms !== 0; terms >>= 1, i++) if ((terms & 1) !== 0) z += w[URL_TERMS + i] as number;
    return z + urls.tokenWeightSum(id, model.sparse);
  }

  // --- Features --------------------------------------------------------------------------

  /** Fills the shared feature vector for a URL, yields centred on the model's mean grade (valid until the next call). */
  #features(id: number, model: FrozenModel): Float64Array {
    const x = this.#x;
    const urls = this.#urls;
    const parents = urls.parents[id] as number;
    const distance = this.#distance.of(id);
    const mean = model.meanGrade;
    x[F.bias] = 1;
    x[F.anchorBest] = urls.anchorBest(id);
    x[F.anchorSum] = Math.log1p(urls.anchorSum[id] as number);
    x[F.context] = Math.log1p(urls.contextSum[id] as number);
    x[F.url] = urls.urlMatch(id);
    x[F.indexBody] = urls.indexBody(id);
    x[F.indexTitle] = urls.indexTitle(id);
    x[F.expansion] = urls.expansion(id);
    x[F.hotParent] = distance === 1 ? 1 : 0;
    x[F.nearHot] = distance === 2 ? 1 : 0;
    x[F.parentMax] = urls.parentGradeMax(id);
    x[F.parentMean] = parents === 0 ? 0 : (urls.parentGradeSum[id] as number) / parents;
    x[F.siblings] = smoothedYield(urls.siblings[id] as number, urls.siblingGradeSum[id] as number, mean);
    x[F.folder] = this.#templates.folderYield(id, mean);
    x[F.site] = this.#sites.yieldOf(id, model.epoch);
    x[F.copies] = this.#templates.copyYield(id, mean);
    x[F.hub] = urls.has(id, HUB) ? 1 : 0;
    x[F.inLinks] = Math.log1p(parents);
    x[F.download] = urls.has(id, DOWNLOAD) ? 1 : 0;
    x[F.resource] = urls.has(id, RESOURCE) ? 1 : 0;
    x[F.seed] = urls.has(id, SEED) ? 1 : 0;
    const anchorTerms = urls.anchorTerms[id] as number;
    const urlTerms = urls.urlTerms[id] as number;
    for (let i = 0; i < MAX_TERMS; i++) {
      x[ANCHOR_TERMS + i] = (anchorTerms >> i) & 1;
      x[URL_TERMS + i] = (urlTerms >> i) & 1;
    }
    for (const j of this.#heldAtZero) x[j] = 0;
    return x;
  }

  /** A per-term feature is named by its term (anchor-term:trigger). */
  #featureName(j: number, name: string): string {
    const terms = this.#matcher.queryTerms;
    if (j >= URL_TERMS) return `url-term:${terms[j - URL_TERMS] ?? '?'}`;
    if (j >= ANCHOR_TERMS) return `anchor-term:${terms[j - ANCHOR_TERMS] ?? '?'}`;
    return name;
  }
}
