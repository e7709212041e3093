import { UsageError } from '../errors.ts';
import type { RelevanceModel } from './relevance.ts';
import { contentTerms } from './text.ts';

/*
 * Which pages are hot. Two forms, as in Cho et al.:
 *
 * - A threshold on relevance: hot iff relevance ≥ θ. The user may give θ; by default θ
 *   is the query's reference similarity (RelevanceModel.referenceSimilarity): the cosine
 *   of a page of typical size for the site that holds every query term as prominently
 *   as an average one of its terms, sqrt(|Q| / D). It depends only on the query and on
 *   the pages seen so far (through the median page size), so it is deterministic, and
 *   no constant in it was fitted to a site.
 *
 * - A predicate over the page's words (Cho's "the title contains computer, or the body
 *   says it at least 10 times"): clauses joined by `|`, any of which makes the page hot.
 *     title:TERM         the title contains TERM
 *     title>=N:TERM      the title contains TERM at least N times
 *     body:TERM          the body contains TERM
 *     body>=N:TERM       the body contains TERM at least N times
 *     relevance>=X       the page's relevance is at least X (0 ≤ X ≤ 1)
 *   TERM is a word or a "quoted phrase". Matching is on Porter stems with stop words
 *   dropped, as everywhere in relevance, so "checkpoints" matches "checkpoint" and the
 *   phrase "state of the art" matches "state-of-the-art".
 */

export interface HotPage {
  title: string;
  text: string;
  relevance: number;
  titleTerms: ReadonlyMap<string, number>;
  bodyTerms: ReadonlyMap<string, number>;
}

export interface HotRule {
  isHot(page: HotPage): boolean;
  /** The rule in words, for logs and reports. */
  describe(): string;
}

type Field = 'title' | 'body';

interface Clause {
  matches(page: HotPage): boolean;
  readonly text: string;
}

const SYNTAX = 'title:TERM, title>=N:TERM, body:TERM, body>=N:TERM or relevance>=X, joined by |';

class TermClause implements Clause {
  readonly text: string;
  readonly #field: Field;
  readonly #minimum: number;
  readonly #terms: readonly string[];

  constructor(text: string, field: Field, minimum: number, terms: readonly string[]) {
    this.text = text;
    this.#field = field;
    this.#minimum = minimum;
    this.#terms = terms;
  }

  matches(page: HotPage): boolean {
    const counts = this.#field === 'title' ? page.titleTerms : page.bodyTerms;
    if (this.#terms.length === 1) return (counts.get(this.#terms[0]!) ?? 0) >= this.#minimum;
    // A phrase can occur no more often than its rarest word: skip the text when that rules it out.
    for (const term of this.#terms) if ((counts.get(term) ?? 0) < this.#minimum) return false;
    return countPhrase(contentTerms(this.#field === 'title' ? page.title : page.text), this.#terms, this.#minimum) >= this.#minimum;
  }
}

/** Non-overlapping occurrences of a term sequence, counting stops once `enough` is reached. */
function countPhrase(terms: readonly string[], phrase: readonly string[], enough: number): number {
  let found = 0;
  for (let i = 0; i + phrase.length <= terms.length && found < enough; ) {
    let j = 0;
    while (j < phrase.length && terms[i + j] === phrase[j]) j++;
    if (j === phrase.length) {
      found++;
      i += phrase.length;
    } else {
      i++;
    }
  }
  return found;
}

class RelevanceClause implements Clause {
  readonly text: string;
  readonly #threshold: number;

  constructor(threshold: number) {
    this.#threshold = threshold;
    this.text = `relevance>=${threshold}`;
  }

  matches(page: HotPage): boolean {
    return page.relevance >= this.#threshold;
  }
}

class AnyClauseRule implements HotRule {
  readonly #clauses: readonly Clause[];

  constructor(clauses: readonly Clause[]) {
    this.#clauses = clauses;
  }

  isHot(page: HotPage): boolean {
    for (const clause of this.#clauses) if (clause.matches(page)) return true;
    return false;
  }

  describe(): string {
    return `hot if ${this.#clauses.map((c) => c.text).join(' or ')}`;
  }
}

class ReferenceThresholdRule implements HotRule {
  readonly #relevance: RelevanceModel;

  constructor(relevance: RelevanceModel) {
    this.#relevance = relevance;
  }

  isHot(page: HotPage): boolean {
    return page.relevance >= this.#relevance.referenceSimilarity();
  }

  describe(): string {
    const d = this.#relevance.idf.typicalDistinctTerms;
    const q = this.#relevance.queryTerms.length;
    return `hot if relevance >= sqrt(${q} query terms / ${Math.round(d)} terms in a typical page) = ${this.#relevance.referenceSimilarity().toFixed(3)} (now)`;
  }
}

const TERM_CLAUSE = /^(title|body)\s*(?:>=\s*(\d+)\s*)?:\s*(.*)$/;
const RELEVANCE_CLAUSE = /^relevance\s*>=\s*(.*)$/;

function malformed(spec: string, clause: string, why: string): UsageError {
  return new UsageError(`Hot predicate clause "${clause}" ${why}. Expected ${SYNTAX}.`, { spec, clause });
}

function parseThreshold(value: string, spec: string, clause: string): number {
  const threshold = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value) ? Number(value) : NaN;
  if (!(threshold >= 0 && threshold <= 1)) throw malformed(spec, clause, `has a relevance "${value}" that is not a number from 0 to 1`);
  return threshold;
}

function parseTerm(raw: string, spec: string, clause: string): string[] {
  const quoted = /^"([^"]*)"$/.exec(raw);
  if (!quoted && !/^[^\s"]+$/.test(raw)) {
    throw malformed(spec, clause, raw === '' ? 'has no term' : `has "${raw}" as its term: put a phrase in double quotes`);
  }
  // Split as page text is, so "socket.io" is the phrase socket io, as it would be on a page.
  const terms = contentTerms(quoted ? quoted[1]! : raw);
  if (terms.length === 0) throw malformed(spec, clause, `has "${raw}" as its term, which has no content word (stop words and bare numbers are not matched)`);
  return terms;
}

function parseClause(clause: string, spec: string): Clause {
  const relevance = RELEVANCE_CLAUSE.exec(clause);
  if (relevance) return new RelevanceClause(parseThreshold(relevance[1]!.trim(), spec, clause));
  const term = TERM_CLAUSE.exec(clause);
  if (!term) throw malformed(spec, clause, 'is not understood');
  const minimum = term[2] === undefined ? 1 : Number(term[2]);
  if (!Number.isSafeInteger(minimum) || minimum < 1) throw malformed(spec, clause, `asks for "${term[2]}" occurrences: give a whole number of at least 1`);
  return new TermClause(clause, term[1] as Field, minimum, parseTerm(term[3]!.trim(), spec, clause));
}

/** Splits on `|` outside double quotes. */
function splitClauses(spec: string): string[] {
  const clauses: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of spec) {
    if (ch === '"') quoted = !quoted;
    if (ch === '|' && !quoted) {
      clauses.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (quoted) throw new UsageError(`Hot predicate "${spec}" has an unclosed double quote.`, { spec });
  clauses.push(current.trim());
  return clauses;
}

function parseClauses(spec: string): Clause[] {
  if (spec.trim() === '') throw new UsageError(`Hot predicate is empty. Expected ${SYNTAX}.`, { spec });
  return splitClauses(spec).map((clause) => {
    if (clause === '') throw new UsageError(`Hot predicate "${spec}" has an empty clause (a stray |). Expected ${SYNTAX}.`, { spec });
    return parseClause(clause, spec);
  });
}

/** A Cho-style predicate such as `title:checkpoint|body>=10:checkpoint`. */
export function parseHotPredicate(spec: string): HotRule {
  return new AnyClauseRule(parseClauses(spec));
}

/**
 * The crawl's hot rule. With a predicate, the predicate (and, when a threshold is given
 * too, relevance ≥ threshold as one more clause). With only a threshold, relevance ≥
 * threshold. With neither, relevance ≥ the query's reference similarity, which needs
 * the relevance model.
 */
export function createHotRule(spec: string | undefined, threshold: number | undefined, relevance?: RelevanceModel): HotRule {
  const clauses = spec === undefined ? [] : parseClauses(spec);
  if (threshold !== undefined) {
    if (!(threshold >= 0 && threshold <= 1)) throw new UsageError(`Hot threshold ${threshold} is not a number from 0 to 1.`, { threshold });
    clauses.push(new RelevanceClause(threshold));
  }
  if (clauses.length > 0) return new AnyClauseRule(clauses);
  if (relevance === undefined) {
    throw new UsageError('The default hot threshold is relative to the query: give the relevance model, a threshold or a predicate.');
  }
  return new ReferenceThresholdRule(relevance);
}
