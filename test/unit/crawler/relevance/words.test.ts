import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forEachWord } from '../../../../crawler/relevance/words.ts';

/** The definition the scan must match, word for word. */
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

function words(text: string): string[] {
  const found: string[] = [];
  forEachWord(text, (word) => found.push(word));
  return found;
}

/** A small deterministic generator, so that a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// Letters and numbers of several scripts and planes, marks and symbols between them,
// both apostrophes, and surrogates alone and in pairs.
const PALETTE = [
  'a', 'Z', '7', ' ', ' ', '.', '-', "'", '’', 'é', 'ß', 'Ж', '中', 'ا', '\u0301', '²', 'Ⅻ', '٣', '¶', '€', '_',
  '𝑥', '𝟙', '😀', '\ud835', '\udc65', '\n', '\u00a0', '\u200b', 'ǅ', 'ª',
];

describe('splitting text into words', () => {
  it('finds the words of ordinary text, keeping an apostrophe and the letters after it', () => {
    assert.deepEqual(words("WAL's checkpoints, isn’t it? 2024-01 x'3 end'"), ["WAL's", 'checkpoints', 'isn’t', 'it', '2024', '01', 'x', '3', 'end']);
    assert.deepEqual(words(''), []);
    assert.deepEqual(words('¶ — ¶'), []);
  });

  it('finds exactly the words the regular expression finds, in any script or plane', () => {
    const next = random(20261126);
    for (let round = 0; round < 3000; round++) {
      const length = Math.floor(next() * 40);
      let text = '';
      for (let i = 0; i < length; i++) text += PALETTE[Math.floor(next() * PALETTE.length)];
      assert.deepEqual(words(text), text.match(WORD) ?? [], `round ${round}: ${JSON.stringify(text)}`);
    }
  });
});
