import { enlarge } from '../../memory/enlarge.ts';
import { capacityFor } from '../columns.ts';
import { SPARSE_SIZE } from './online-model.ts';
import { identifierWords } from './query-matcher.ts';
import type { SparseWeightReader } from './sparse-weights.ts';

/*
 * What the focused strategy knows about each URL, in typed columns indexed by URL id (ids
 * are small and dense). Shares in [0, 1] are kept in one byte (steps of 1/255); counts
 * in two (saturating at 65,535); sums in four.
 */

export const FETCHED = 1;
export const HOT = 2;
export const CHANGED = 4;
export const HUB = 8;
export const DOWNLOAD = 16;
export const RESOURCE = 32;
/** Which of the two latest epochs' models the URL's priority was computed with. */
export const ODD_EPOCH = 64;
export const KNOWN = 128;
/** Waiting to be re-scored at the end of the current event. */
export const DIRTY = 256;
/** A seed the user gave. */
export const SEED = 512;
/** On the outlinks of the page being fetched, already taken once (cleared when they are collected). */
export const LISTED = 1024;

const MAX_URL_WORDS = 8;

/** A share in [0, 1] as a byte. */
function toByte(share: number): number {
  return Math.round(Math.min(1, Math.max(0, share)) * 255);
}

/**
 * The hashed words of a URL's file name, for the model's sparse weights: wal-intro.html →
 * wal, intro. Folders are measured by the folder template, and the later dot-separated
 * parts of a name (index.de.html) mark a variant, not a topic.
 */
export function urlWordTokens(url: string): number[] {
  const path = URL.parse(url)?.pathname ?? '';
  const name = path.slice(path.lastIndexOf('/') + 1).split('.')[0] ?? '';
  return [...new Set(identifierWords(name))].slice(0, MAX_URL_WORDS).map((w) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
    return (h >>> 0) & (SPARSE_SIZE - 1);
  });
}

export class UrlEvidence {
  capacity = 0;
  /** One past the largest id seen. */
  end = 0;
  flags = new Uint16Array(0);
  /** The best in-link anchor's query match, and the matches summed over every in-link. */
  #anchorBest = new Uint8Array(0);
  anchorSum = new Float32Array(0);
  contextSum = new Float32Array(0);
  /** Per query term (bit i: term i): named by some in-link anchor, and by the URL's words. */
  anchorTerms = new Uint8Array(0);
  urlTerms = new Uint8Array(0);
  #urlMatch = new Uint8Array(0);
  #indexBody = new Uint8Array(0);
  #indexTitle = new Uint8Array(0);
  #expansion = new Uint8Array(0);
  /** Fetched parents, their grades summed, and the best of them. */
  parents = new Uint16Array(0);
  parentGradeSum = new Float32Array(0);
  #parentGradeMax = new Uint8Array(0);
  /** Crawled siblings (over stored parents) and their grades summed. */
  siblings = new Uint16Array(0);
  siblingGradeSum = new Float32Array(0);
  /** For a fetched page: its crawled children and their grades summed; and its own grade. */
  children = new Uint16Array(0);
  childGradeSum = new Float32Array(0);
  #grade = new Uint8Array(0);
  /** For a fetched page: the best share of a child's grade it was credited with (delayed credit). */
  #credit = new Uint8Array(0);
  priority = new Float64Array(0);
  /** URL word tokens, packed: tokens of id are tokenData[tokenStart[id] .. + tokenCount[id]). */
  #tokenData = new Uint16Array(1024);
  #tokenStart = new Uint32Array(0);
  #tokenCount = new Uint8Array(0);
  #tokensUsed = 0;

  /** Makes room for `id`; returns true when the columns grew (so the caller grows its own). */
  fit(id: number): boolean {
    if (id >= this.end) this.end = id + 1;
    if (id < this.capacity) return false;
    const c = capacityFor(this.capacity, id + 1);
    this.capacity = c;
    this.flags = enlarge(this.flags, c);
    this.#anchorBest = enlarge(this.#anchorBest, c);
    this.anchorSum = enlarge(this.anchorSum, c);
    this.contextSum = enlarge(this.contextSum, c);
    this.anchorTerms = enlarge(this.anchorTerms, c);
    this.urlTerms = enlarge(this.urlTerms, c);
    this.#urlMatch = enlarge(this.#urlMatch, c);
    this.#indexBody = enlarge(this.#indexBody, c);
    this.#indexTitle = enlarge(this.#indexTitle, c);
    this.#expansion = enlarge(this.#expansion, c);
    this.parents = enlarge(this.parents, c);
    this.parentGradeSum = enlarge(this.parentGradeSum, c);
    this.#parentGradeMax = enlarge(this.#parentGradeMax, c);
    this.siblings = enlarge(this.siblings, c);
    this.siblingGradeSum = enlarge(this.siblingGradeSum, c);
    this.children = enlarge(this.children, c);
    this.childGradeSum = enlarge(this.childGradeSum, c);
    this.#grade = enlarge(this.#grade, c);
    this.#credit = enlarge(this.#credit, c);
    this.priority = enlarge(this.priority, c);
    this.#tokenStart = enlarge(this.#tokenStart, c);
    this.#tokenCount = enlarge(this.#tokenCount, c);
    return true;
  }

  has(id: number, flag: number): boolean {
    return id < this.capacity && ((this.flags[id] as number) & flag) !== 0;
  }

  set(id: number, flag: number): void {
    this.flags[id] = (this.flags[id] as number) | flag;
  }

  clear(id: number, flag: number): void {
    this.flags[id] = (this.flags[id] as number) & ~flag;
  }

  anchorBest(id: number): number {
    return (this.#anchorBest[id] as number) / 255;
  }

  /** Raises the best anchor match; true when it rose. */
  raiseAnchorBest(id: number, match: number): boolean {
    const b = toByte(match);
    if (b <= (this.#anchorBest[id] as number)) return false;
    this.#anchorBest[id] = b;
    return true;
  }

  urlMatch(id: number): number {
    return (this.#urlMatch[id] as number) / 255;
  }

  setUrlMatch(id: number, match: number): void {
    this.#urlMatch[id] = toByte(match);
  }

  indexBody(id: number): number {
    return (this.#indexBody[id] as number) / 255;
  }

  indexTitle(id: number): number {
    return (this.#indexTitle[id] as number) / 255;
  }

  /** Raises what a search index says of the URL; true when either rose. */
  raiseIndex(id: number, body: number, title: number): boolean {
    const b = toByte(body);
    const t = toByte(title);
    const rose = b > (this.#indexBody[id] as number) || t > (this.#indexTitle[id] as number);
    if (b > (this.#indexBody[id] as number)) this.#indexBody[id] = b;
    if (t > (this.#indexTitle[id] as number)) this.#indexTitle[id] = t;
    return rose;
  }

  expansion(id: number): number {
    return (this.#expansion[id] as number) / 255;
  }

  raiseExpansion(id: number, match: number): boolean {
    const b = toByte(match);
    if (b <= (this.#expansion[id] as number)) return false;
    this.#expansion[id] = b;
    return true;
  }

  parentGradeMax(id: number): number {
    return (this.#parentGradeMax[id] as number) / 255;
  }

  /** Counts a fetched parent with this grade. */
  addParent(id: number, grade: number): void {
    if ((this.parents[id] as number) < 0xffff) this.parents[id]!++;
    this.parentGradeSum[id]! += grade;
    const b = toByte(grade);
    if (b > (this.#parentGradeMax[id] as number)) this.#parentGradeMax[id] = b;
  }

  /** Counts a crawled child of a fetched page. */
  countChild(page: number, grade: number): void {
    if ((this.children[page] as number) < 0xffff) this.children[page]!++;
    this.childGradeSum[page]! += grade;
  }

  /** Counts crawled siblings of a URL; past 65,535 siblings the yield stays as it was. */
  countSiblings(id: number, n: number, gradeSum: number): void {
    if ((this.siblings[id] as number) + n > 0xffff) return;
    this.siblings[id]! += n;
    this.siblingGradeSum[id]! += gradeSum;
  }

  /** A fetched parent's grade changed by `delta` to `grade`. */
  regradeParent(id: number, delta: number, grade: number): void {
    this.parentGradeSum[id]! += delta;
    const b = toByte(grade);
    if (b > (this.#parentGradeMax[id] as number)) this.#parentGradeMax[id] = b;
  }

  grade(id: number): number {
    return (this.#grade[id] as number) / 255;
  }

  setGrade(id: number, grade: number): void {
    this.#grade[id] = toByte(grade);
  }

  /** What a fetched page counts as in its templates' yields: its grade, or what its children earned it if more. */
  templateGrade(id: number): number {
    return Math.max(this.#grade[id] as number, this.#credit[id] as number) / 255;
  }

  /** Raises the credit a fetched page earned through a child; true when it rose. */
  raiseCredit(id: number, credit: number): boolean {
    const b = toByte(credit);
    if (b <= (this.#credit[id] as number)) return false;
    this.#credit[id] = b;
    return true;
  }

  setTokens(id: number, tokens: readonly number[]): void {
    if (this.#tokensUsed + tokens.length > this.#tokenData.length) this.#tokenData = enlarge(this.#tokenData, capacityFor(this.#tokenData.length, this.#tokensUsed + tokens.length));
    this.#tokenData.set(tokens, this.#tokensUsed);
    this.#tokenStart[id] = this.#tokensUsed;
    this.#tokenCount[id] = tokens.length;
    this.#tokensUsed += tokens.length;
  }

  /** The weights of the URL's word tokens summed, as sparseSum gives them, without a view of them. */
  tokenWeightSum(id: number, sparse: SparseWeightReader): number {
    const start = this.#tokenStart[id] as number;
    const end = start + (this.#tokenCount[id] as number);
    let z = 0;
    for (let k = start; k < end; k++) z += sparse.weight(this.#tokenData[k] as number);
    return z;
  }

  /** The URL's word tokens (a view: valid until the next setTokens). */
  tokens(id: number): Uint16Array {
    const start = this.#tokenStart[id] as number;
    return this.#tokenData.subarray(start, start + (this.#tokenCount[id] as number));
  }
}
