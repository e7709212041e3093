import porterStemmer from 'natural/lib/natural/stemmers/porter_stemmer.js';
import stopwordList from 'natural/lib/natural/util/stopwords.js';
import { forEachWord } from './words.ts';

/*
 * Text to terms for relevance: lower-cased words, English stop words removed, Porter
 * stems (natural). Imported by path: natural's index pulls in storage back-ends that
 * print to stdout when loaded.
 */

const STOP_WORDS: ReadonlySet<string> = new Set((stopwordList as { words: string[] }).words);
const MAX_WORD_LENGTH = 40;
/** Stems are memoised: a crawl meets the same few hundred thousand words again and again. */
const STEM_CACHE_LIMIT = 200_000;
const stemCache = new Map<string, string>();

function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = (porterStemmer as { stem(w: string): string }).stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

function isDigits(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** True for words that carry no topic: stop words, single letters, bare numbers. */
export function isStopWord(word: string): boolean {
  return word.length < 2 || STOP_WORDS.has(word) || isDigits(word);
}

function forEachContentTerm(text: string, visit: (term: string) => void): void {
  forEachWord(text.toLowerCase(), (word) => {
    // "isn't" is a stop word as written; "wal's" is the term "wal".
    if (STOP_WORDS.has(word)) return;
    let apostrophe = word.indexOf("'");
    if (apostrophe < 0) apostrophe = word.indexOf('’');
    const stripped = apostrophe >= 0 ? word.slice(0, apostrophe) : word;
    if (stripped.length > MAX_WORD_LENGTH || stripped.length < 2 || isDigits(stripped) || (apostrophe >= 0 && STOP_WORDS.has(stripped))) return;
    visit(stem(stripped));
  });
}

/** The content terms of a text, in order (repeats kept). */
export function contentTerms(text: string): string[] {
  const terms: string[] = [];
  forEachContentTerm(text, (term) => terms.push(term));
  return terms;
}

/** How often each content term occurs in a text. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  forEachContentTerm(text, (term) => counts.set(term, (counts.get(term) ?? 0) + 1));
  return counts;
}

/** Terms of words that are already split (URL tokens, query words): stop words dropped, stemmed. */
export function termsOfWords(words: Iterable<string>): string[] {
  const terms: string[] = [];
  for (const raw of words) {
    const word = raw.toLowerCase();
    if (word.length > MAX_WORD_LENGTH || isStopWord(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}
