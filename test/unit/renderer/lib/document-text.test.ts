import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeBase64, splitPages } from '../../../../renderer/src/lib/document-text.ts';

describe('a document\'s text by page', () => {
  const text = 'First page.\n\nSecond page,\nstill.\n\nThird.';
  const starts = [0, 13, 34];

  test('cuts the text at its page starts, each page without the lines that joined it to the next', () => {
    assert.deepEqual(splitPages(text, starts), [
      { page: 1, text: 'First page.' },
      { page: 2, text: 'Second page,\nstill.' },
      { page: 3, text: 'Third.' },
    ]);
  });

  test('keeps an empty page as a page of its own', () => {
    assert.deepEqual(splitPages('A\n\n\n\nC', [0, 3, 5]).map((p) => [p.page, p.text]), [[1, 'A'], [2, ''], [3, 'C']]);
  });

  test('trusts no damaged page starts: the text is then one page', () => {
    for (const damaged of [[], [5, 10], [0, 30, 20], [0, 999], [0, 1.5]]) {
      assert.deepEqual(splitPages(text, damaged), [{ page: 1, text }], JSON.stringify(damaged));
    }
  });

  test('decodes base64 to the bytes it carries', () => {
    const bytes = Uint8Array.from([0, 1, 127, 128, 255, 37, 80, 68, 70]);
    assert.deepEqual(decodeBase64(Buffer.from(bytes).toString('base64')), bytes);
    assert.deepEqual(decodeBase64(''), new Uint8Array(0));
  });
});
