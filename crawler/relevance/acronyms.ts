import { isStopWord, termsOfWords } from './text.ts';

/*
 * The acronyms a site uses for the query's phrases. "write-ahead logging and checkpoints"
 * is written WAL on PostgreSQL's and SQLite's pages, "fast Fourier transforms" FFT on
 * SciPy's: a judge that counts only the typed words misses the pages that say WAL forty
 * times and "write-ahead" once. An acronym is taken up only once a page defines it, as
 * "long form (SHORT)" or "SHORT (long form)" (Schwartz and Hearst, PSB 2003): its
 * letters alone would match any three-letter word.
 *
 * Candidates are the initials of two to four consecutive content words of the query
 * (hyphenated parts count as words), three letters or more.
 */

const MIN_LETTERS = 3;
const MAX_WORDS = 4;
/** A long form's word may end differently on the page (log, logs, logging): its first letters must match. */
const KEPT_PREFIX = 3;

export interface Acronym {
  /** The acronym's term (stemmed as page words are). */
  term: string;
  /** The query terms of its long form. */
  longForm: readonly string[];
}

/**
 * Files `term` among the synonyms of each query term it stands for (`synonyms[i]` belongs to
 * `queryTerms[i]`), as the judge and the ordering's matcher both keep them; true when it was
 * new for any.
 */
export function fileSynonym(queryTerms: readonly string[], synonyms: string[][], term: string, standsFor: readonly string[]): boolean {
  let added = false;
  queryTerms.forEach((q, i) => {
    const list = synonyms[i] as string[];
    if (!standsFor.includes(q) || q === term || list.includes(term)) return;
    list.push(term);
    added = true;
  });
  return added;
}

interface Candidate extends Acronym {
  letters: string;
  definition: RegExp;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A long-form word as a pattern: its first letters, then any ending (logging ↔ log, logs). */
function wordPattern(word: string): string {
  return `${escape(word.slice(0, KEPT_PREFIX))}\\p{L}*`;
}

function candidatesOf(query: string): Candidate[] {
  const runs: string[][] = [[]];
  for (const word of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (isStopWord(word)) runs.push([]);
    else (runs[runs.length - 1] as string[]).push(word);
  }
  const candidates: Candidate[] = [];
  for (const run of runs) {
    for (let start = 0; start < run.length; start++) {
      for (let end = start + 2; end <= Math.min(run.length, start + MAX_WORDS); end++) {
        const words = run.slice(start, end);
        const letters = words.map((w) => w[0]).join('');
        if (letters.length < MIN_LETTERS) continue;
        const longForm = words.map(wordPattern).join('[\\s\\-]+');
        const short = escape(letters);
        candidates.push({
          letters,
          term: termsOfWords([letters])[0] ?? letters,
          longForm: termsOfWords(words),
          definition: new RegExp(`${longForm}\\s*\\(\\s*${short}s?\\s*\\)|\\b${short}s?\\s*\\(\\s*${longForm}\\s*\\)`, 'iu'),
        });
      }
    }
  }
  return candidates;
}

/** The query's acronym candidates and those a page has defined so far. */
export class QueryAcronyms {
  readonly #waiting: Candidate[];
  readonly #confirmed: Acronym[] = [];

  constructor(query: string) {
    this.#waiting = candidatesOf(query);
  }

  /** Looks for definitions in a page's text; returns the acronyms it confirmed first. */
  observe(text: string): Acronym[] {
    if (this.#waiting.length === 0) return [];
    const found: Acronym[] = [];
    for (let i = this.#waiting.length - 1; i >= 0; i--) {
      const candidate = this.#waiting[i] as Candidate;
      if (!candidate.definition.test(text)) continue;
      this.#waiting.splice(i, 1);
      const acronym = { term: candidate.term, longForm: candidate.longForm };
      this.#confirmed.push(acronym);
      found.push(acronym);
    }
    return found;
  }

  /** Takes acronyms found defined elsewhere (an earlier run's pages); returns those that were new. */
  adopt(acronyms: readonly Acronym[]): Acronym[] {
    const adopted: Acronym[] = [];
    for (const acronym of acronyms) {
      const at = this.#waiting.findIndex((c) => c.term === acronym.term);
      if (at < 0) continue;
      this.#waiting.splice(at, 1);
      this.#confirmed.push(acronym);
      adopted.push(acronym);
    }
    return adopted;
  }

  get confirmed(): readonly Acronym[] {
    return this.#confirmed;
  }

  /** The letters of each acronym not yet defined (wal, fft), for finding stored pages that may define one. */
  get waitingLetters(): readonly string[] {
    return this.#waiting.map((c) => c.letters);
  }
}
