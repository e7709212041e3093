import { fileSynonym } from '../../relevance/acronyms.ts';
import { backgroundIdf } from '../../relevance/background-idf.ts';
import { IdfEstimator } from '../../relevance/idf.ts';
import { contentTerms, termsOfWords } from '../../relevance/text.ts';
import { urlTokens } from '../../url/tokens.ts';

/*
 * How much of the driving query a short text names: an anchor, the words around it, a
 * URL, a page title from a site's search index. Documentation names things with
 * identifiers, so the text is split the way code is written (create_server_socket,
 * getSocketTimeout, xml.etree → create server socket, get socket timeout, xml etree) and
 * a query stem of four letters or more found inside a longer word earns half credit
 * (socket in websockets; not log in logical). Each query term weighs idf², as in the judge (relevance.ts), with idf estimated
 * from the fetched pages' terms: "working with submodules" is about submodules.
 *
 *     match(text) = Σ_{q named} w_q · credit_q / Σ_q w_q        in [0, 1]
 */

/** Splits on everything but letters and digits, and at camelCase and letter-digit boundaries. */
const CHUNK = /[\p{L}\p{N}]+/gu;
const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{Lo}\p{Lt}\p{Lm}]+/gu;
/** A query stem this long counts inside a longer word; shorter stems (log, xml) only as whole words. */
const INFIX_MIN = 4;
const COMPOUND_CREDIT = 0.5;
const CACHE_LIMIT = 100_000;
/** Query terms past this many share no per-term evidence of their own (features.ts). */
export const MAX_TERMS = 8;

/** What a text names of the query: match() in [0, 1], and a bit per query term it names (term i: bit i). */
export interface QueryMatch {
  score: number;
  terms: number;
}

const NO_MATCH: QueryMatch = { score: 0, terms: 0 };

/** The words of a text as identifiers are written, lower-cased. */
export function identifierWords(text: string): string[] {
  const words: string[] = [];
  for (const chunk of text.match(CHUNK) ?? []) for (const word of chunk.match(WORD) ?? []) words.push(word.toLowerCase());
  return words;
}

export class QueryMatcher {
  readonly queryTerms: readonly string[];
  readonly #idf = new IdfEstimator({ background: backgroundIdf() });
  #weights: Float64Array;
  readonly #cache = new Map<string, QueryMatch>();
  /** Feedback terms (expansion.ts) and the share of them each text names. */
  #expansion: readonly string[] = [];
  #expansionKeys: RegExp | null = null;
  readonly #expansionCache = new Map<string, number>();
  /** The query stems' keys (keysOf): a text without any of them cannot name a query term. */
  #keys: RegExp | null;
  /** Per query term: the phrase it is written in (write-ahead, "table of contents"), which a text must name whole; null when free. */
  readonly #phraseOf: (readonly string[] | null)[];
  readonly #hasPhrase: boolean;
  /** Per query term: acronyms that name it too (the judge saw them defined: "Write-Ahead Logging (WAL)"). */
  readonly #synonyms: string[][];

  constructor(query: string) {
    this.queryTerms = [...new Set(contentTerms(query))];
    this.#weights = new Float64Array(this.queryTerms.length);
    this.#synonyms = this.queryTerms.map(() => []);
    this.#phraseOf = phrasesOf(query, this.queryTerms);
    this.#hasPhrase = this.#phraseOf.some((p) => p !== null);
    this.#keys = keysOf(this.queryTerms);
    this.#reweigh();
  }

  /** The query term weights (idf²) in queryTerms order, summing to 1. */
  weights(): Float64Array {
    return this.#weights;
  }

  /**
   * From now on `term` names each query term of `standsFor`, as a word or as a part of an
   * identifier's word that starts or ends with it (pg_resetwal, walreceiver).
   */
  addSynonym(term: string, standsFor: readonly string[]): void {
    if (!fileSynonym(this.queryTerms, this.#synonyms, term, standsFor)) return;
    this.#keys = keysOf([...this.queryTerms, ...this.#synonyms.flat()]);
    this.#cache.clear();
  }

  /** Counts a fetched page towards the query terms' idf (only they are asked about); weights change only at refresh(). */
  observe(pageTerms: readonly string[]): void {
    this.#idf.observeDistinct(this.queryTerms.filter((q) => pageTerms.includes(q)));
  }

  /** Takes up the idf as it stands now; cached matches are dropped. */
  refresh(): void {
    this.#reweigh();
    this.#cache.clear();
  }

  /** match(text) for prose or an identifier. */
  match(text: string): QueryMatch {
    if (text === '' || !mayName(text, this.#keys)) return NO_MATCH;
    let m = this.#cache.get(text);
    if (m === undefined) {
      m = this.matchWords(identifierWords(text));
      if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
      this.#cache.set(text, m);
    }
    return m;
  }

  /** match() of words already split (URL tokens). */
  matchWords(words: readonly string[]): QueryMatch {
    // Only words holding a key can name a term; stemming the others is most of the cost of a long context. A phrase needs every word, in order.
    const candidates = this.#hasPhrase ? words : words.filter((w) => mayName(w, this.#keys));
    if (candidates.length === 0) return NO_MATCH;
    const stems = termsOfWords(candidates);
    let score = 0;
    let terms = 0;
    for (let i = 0; i < this.queryTerms.length; i++) {
      const q = this.queryTerms[i] as string;
      const synonyms = this.#synonyms[i] as string[];
      const phrase = this.#phraseOf[i] as readonly string[] | null;
      let credit = 0;
      if (phrase === null ? stems.includes(q) : containsRun(stems, phrase)) credit = 1;
      else if (synonyms.some((s) => stems.includes(s))) credit = 1;
      else if (candidates.some((w) => (phrase === null && namesInside(w, q)) || synonyms.some((s) => bordersOn(w, s)))) credit = COMPOUND_CREDIT;
      if (credit === 0) continue;
      score += credit * (this.#weights[i] as number);
      if (i < MAX_TERMS) terms |= 1 << i;
    }
    return score === 0 && terms === 0 ? NO_MATCH : { score, terms };
  }

  /** Takes a new set of feedback terms (stems). */
  setExpansion(terms: readonly string[]): void {
    this.#expansion = terms;
    this.#expansionKeys = keysOf(terms);
    this.#expansionCache.clear();
  }

  /** The share of the feedback terms a text (prose, or a URL) names, as whole words. */
  matchExpansion(text: string): number {
    if (text === '' || this.#expansion.length === 0 || !mayName(text, this.#expansionKeys)) return 0;
    let m = this.#expansionCache.get(text);
    if (m === undefined) {
      const stems = new Set(termsOfWords(text.startsWith('http') ? urlTokens(text) : identifierWords(text)));
      m = this.#expansion.filter((t) => stems.has(t)).length / this.#expansion.length;
      if (this.#expansionCache.size >= CACHE_LIMIT) this.#expansionCache.clear();
      this.#expansionCache.set(text, m);
    }
    return m;
  }

  /** match() of terms that are already stems (a search index's terms), as a set. */
  matchTerms(terms: ReadonlySet<string>): number {
    let sum = 0;
    for (let i = 0; i < this.queryTerms.length; i++) if (terms.has(this.queryTerms[i] as string)) sum += this.#weights[i] as number;
    return sum;
  }


  #reweigh(): void {
    let sum = 0;
    for (let i = 0; i < this.queryTerms.length; i++) {
      const idf = this.#idf.idf(this.queryTerms[i] as string);
      this.#weights[i] = idf * idf;
      sum += idf * idf;
    }
    for (let i = 0; i < this.#weights.length; i++) this.#weights[i] = sum === 0 ? 0 : (this.#weights[i] as number) / sum;
  }
}

/**
 * The stems cut by two letters (to at least three), as one case-blind pattern: Porter
 * changes at most the last two letters of a word, so a text that contains none of these
 * names none of the stems, and need not be split and stemmed. One regular-expression scan
 * costs less than lower-casing the text.
 */
function keysOf(stems: readonly string[]): RegExp | null {
  const keys = [...new Set(stems.map((t) => t.slice(0, Math.max(Math.min(t.length, 3), t.length - 2))))];
  return keys.length === 0 ? null : new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'iu');
}

function mayName(text: string, keys: RegExp | null): boolean {
  return keys !== null && keys.test(text);
}

/**
 * Per query term, the phrase it belongs to: the parts of a hyphenated word (write-ahead) or
 * the words in double quotes. "write" of write-ahead then does not match "Writing Trigger
 * Functions". A term the query also uses outside any phrase stays free (null).
 */
function phrasesOf(query: string, queryTerms: readonly string[]): (readonly string[] | null)[] {
  const phrases: string[][] = [];
  let rest = query.replace(/"([^"]*)"/g, (_, quoted: string) => {
    phrases.push(contentTerms(quoted));
    return ' ';
  });
  rest = rest.replace(/[\p{L}\p{N}]+(?:[-‐][\p{L}\p{N}]+)+/gu, (hyphenated: string) => {
    phrases.push(contentTerms(hyphenated));
    return ' ';
  });
  const free = new Set(contentTerms(rest));
  return queryTerms.map((q) => (free.has(q) ? null : (phrases.find((p) => p.length > 1 && p.includes(q)) ?? null)));
}

/** True when `run` occurs in `stems` as consecutive entries. */
function containsRun(stems: readonly string[], run: readonly string[]): boolean {
  for (let i = 0; i + run.length <= stems.length; i++) {
    let j = 0;
    while (j < run.length && stems[i + j] === run[j]) j++;
    if (j === run.length) return true;
  }
  return false;
}

/** An acronym at the start or end of a longer word (resetwal, walreceiver): written together, as identifiers are. */
function bordersOn(word: string, acronym: string): boolean {
  return word.length > acronym.length && (word.startsWith(acronym) || word.endsWith(acronym));
}

/** The query stem inside a longer word, when the stem is long enough to mean the same there. */
function namesInside(word: string, stem: string): boolean {
  return stem.length >= INFIX_MIN && word.length > stem.length && word.includes(stem);
}
