import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MARK_END, MARK_START } from '../../../../crawler/protocol/api.ts';
import { splitSnippet } from '../../../../renderer/src/lib/snippet.ts';

const m = (text: string): string => `${MARK_START}${text}${MARK_END}`;

describe('splitSnippet', () => {
  test('splits plain and marked parts in order', () => {
    assert.deepEqual(splitSnippet(`the ${m('wal')} file and ${m('checkpoints')}.`), [
      { text: 'the ', marked: false },
      { text: 'wal', marked: true },
      { text: ' file and ', marked: false },
      { text: 'checkpoints', marked: true },
      { text: '.', marked: false },
    ]);
  });

  test('text without marks is one plain part; an empty snippet has none', () => {
    assert.deepEqual(splitSnippet('no match here'), [{ text: 'no match here', marked: false }]);
    assert.deepEqual(splitSnippet(''), []);
  });

  test('adjacent marks join and empty marks vanish', () => {
    assert.deepEqual(splitSnippet(`${m('write')}${m('ahead')}${m('')} log`), [
      { text: 'writeahead', marked: true },
      { text: ' log', marked: false },
    ]);
  });

  test('an unclosed mark runs to the end and a stray end is dropped', () => {
    assert.deepEqual(splitSnippet(`a${MARK_END}b ${MARK_START}c d`), [
      { text: 'ab ', marked: false },
      { text: 'c d', marked: true },
    ]);
  });

  test('markup in the text stays text', () => {
    assert.deepEqual(splitSnippet(`<b>${m('<script>')}</b>`), [
      { text: '<b>', marked: false },
      { text: '<script>', marked: true },
      { text: '</b>', marked: false },
    ]);
  });
});
