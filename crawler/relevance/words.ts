/*
 * Splitting text into words: runs of letters and numbers (Unicode's L and N), with an
 * apostrophe and the letters after it kept ("wal's", "isn’t"). The same words as
 * `text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)`, found by a scan that looks each
 * character's class up in a table: the regular expression's Unicode property tests took
 * half the time spent turning page text into terms.
 */

const LETTER = 1;
const NUMBER = 2;
const OTHER = 3;
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;

/** The class of each code unit of the Basic Multilingual Plane, 0 until first asked. */
const bmpClass = new Uint8Array(0x10000);

function classify(char: string): number {
  if (IS_LETTER.test(char)) return LETTER;
  return IS_NUMBER.test(char) ? NUMBER : OTHER;
}

function classOf(codePoint: number): number {
  if (codePoint > 0xffff) return classify(String.fromCodePoint(codePoint));
  let cls = bmpClass[codePoint] as number;
  if (cls === 0) {
    // A lone surrogate is no letter, as in the regular expression.
    cls = classify(String.fromCharCode(codePoint));
    bmpClass[codePoint] = cls;
  }
  return cls;
}

/** The code point at `i` (a surrogate pair read as one). */
function codePointAt(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  return unit >= 0xd800 && unit <= 0xdbff ? (text.codePointAt(i) as number) : unit;
}

const width = (codePoint: number): number => (codePoint > 0xffff ? 2 : 1);

/** Calls `visit` with each word of `text`, in order. */
export function forEachWord(text: string, visit: (word: string) => void): void {
  const length = text.length;
  let i = 0;
  while (i < length) {
    const first = codePointAt(text, i);
    if (classOf(first) === OTHER) {
      i += width(first);
      continue;
    }
    const start = i;
    i += width(first);
    while (i < length) {
      const next = codePointAt(text, i);
      if (classOf(next) === OTHER) break;
      i += width(next);
    }
    const unit = text.charCodeAt(i);
    if (unit === 0x27 || unit === 0x2019) {
      let end = i + 1;
      while (end < length) {
        const next = codePointAt(text, end);
        if (classOf(next) !== LETTER) break;
        end += width(next);
      }
      if (end > i + 1) i = end;
    }
    visit(text.slice(start, i));
  }
}
