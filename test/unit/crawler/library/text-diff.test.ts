import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiffBlock, DiffPart } from '../../../../crawler/protocol/api.ts';
import { diffText, diffWords, editScript } from '../../../../crawler/library/text-diff.ts';
import { pseudoRandomBytes } from '../../../support/random.ts';

/** The length of a longest common subsequence, by the textbook table: what a shortest edit script must match. */
function lcsLength(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const next = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) next[j] = a[i - 1] === b[j - 1] ? (row[j - 1] as number) + 1 : Math.max(row[j] as number, next[j - 1] as number);
    row = next;
  }
  return row[b.length] as number;
}

function side(parts: DiffPart[], keep: DiffPart['op']): string {
  return parts.filter((p) => p.op === 'same' || p.op === keep).map((p) => p.text).join('');
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

describe('editScript', () => {
  it('is a shortest edit script that rebuilds both sides, on many random pairs', () => {
    const bytes = pseudoRandomBytes(40_000, 0x5eed);
    let at = 0;
    const next = (): number => bytes[at++ % bytes.length] as number;
    for (let round = 0; round < 300; round++) {
      const a = Int32Array.from({ length: next() % 30 }, () => next() % 5);
      const b = Int32Array.from({ length: next() % 30 }, () => next() % 5);
      const script = editScript(a, b, 1_000);
      assert.ok(script !== undefined);
      const rebuiltA: number[] = [];
      const rebuiltB: number[] = [];
      let i = 0;
      let j = 0;
      for (const op of script) {
        if (op === 0) {
          assert.equal(a[i], b[j], `round ${round}: a kept token is the same on both sides`);
          rebuiltA.push(a[i++] as number);
          rebuiltB.push(b[j++] as number);
        } else if (op === 1) rebuiltB.push(b[j++] as number);
        else rebuiltA.push(a[i++] as number);
      }
      assert.deepEqual(rebuiltA, [...a], `round ${round}: the script consumes a`);
      assert.deepEqual(rebuiltB, [...b], `round ${round}: the script builds b`);
      const edits = script.filter((op) => op !== 0).length;
      assert.equal(edits, a.length + b.length - 2 * lcsLength(a, b), `round ${round}: no shorter script exists`);
    }
  });

  it('gives up past the edit cap', () => {
    const a = Int32Array.from({ length: 50 }, (_, i) => i);
    const b = Int32Array.from({ length: 50 }, (_, i) => 100 + i);
    assert.equal(editScript(a, b, 99), undefined);
    assert.equal(editScript(a, b, 100)?.length, 100);
  });
});

describe('diffWords', () => {
  it('marks the inserted and deleted words and keeps the rest', () => {
    const diff = diffWords('The WAL is flushed at every checkpoint.', 'The WAL is written and flushed at each checkpoint.');
    assert.deepEqual(diff.parts, [
      { op: 'same', text: 'The WAL is ' },
      { op: 'inserted', text: 'written and ' },
      { op: 'same', text: 'flushed at ' },
      { op: 'deleted', text: 'every ' },
      { op: 'inserted', text: 'each ' },
      { op: 'same', text: 'checkpoint.' },
    ]);
    assert.equal(diff.insertedWords, 3);
    assert.equal(diff.deletedWords, 1);
    assert.equal(diff.coarse, false);
  });

  it('does not count a change of white space as a change', () => {
    const diff = diffWords('one two\nthree', 'one two three');
    assert.deepEqual(diff.parts, [{ op: 'same', text: 'one two three' }]);
  });

  it('shows a rewrite past the cap as replaced whole', () => {
    const diff = diffWords('a b c d e f', 'u v w x y z', 4);
    assert.deepEqual(diff.parts, [{ op: 'deleted', text: 'a b c d e f' }, { op: 'inserted', text: 'u v w x y z' }]);
    assert.equal(diff.coarse, true);
    assert.equal(diff.insertedWords, 6);
    assert.equal(diff.deletedWords, 6);
  });
});

describe('diffText', () => {
  const lines = Array.from({ length: 20 }, (_, i) => `Paragraph ${i} says something about write-ahead logs.`);

  it('gives nothing for equal texts', () => {
    assert.deepEqual(diffText(lines.join('\n'), lines.join('\n')), { blocks: [], insertedWords: 0, deletedWords: 0, coarse: false });
  });

  it('shows a changed line by its words, with two lines of context and the rest left out', () => {
    const changed = [...lines];
    changed[10] = 'Paragraph 10 says nothing new about write-ahead logs.';
    const diff = diffText(lines.join('\n'), changed.join('\n'));
    const expected: DiffBlock[] = [
      { kind: 'skipped', lines: 8 },
      { kind: 'same', text: lines[8] as string },
      { kind: 'same', text: lines[9] as string },
      {
        kind: 'changed',
        parts: [
          { op: 'same', text: 'Paragraph 10 says ' },
          { op: 'deleted', text: 'something ' },
          { op: 'inserted', text: 'nothing new ' },
          { op: 'same', text: 'about write-ahead logs.' },
        ],
      },
      { kind: 'same', text: lines[11] as string },
      { kind: 'same', text: lines[12] as string },
      { kind: 'skipped', lines: 7 },
    ];
    assert.deepEqual(diff.blocks, expected);
    assert.equal(diff.insertedWords, 2);
    assert.equal(diff.deletedWords, 1);
  });

  it('keeps a short unchanged run between two changes whole, and rebuilds both texts from its blocks', () => {
    const changed = [...lines];
    changed.splice(3, 1);
    changed.splice(7, 0, 'A new paragraph on checkpoints.');
    const diff = diffText(lines.join('\n'), changed.join('\n'), { context: 2 });
    assert.ok(!diff.blocks.some((b, i) => b.kind === 'skipped' && i > 0 && i < diff.blocks.length - 1), 'the four lines between the changes are all shown');
    const full = diffText(lines.join('\n'), changed.join('\n'), { context: 1_000 });
    // A changed stretch with nothing on one side adds no line to it.
    const rebuild = (keep: DiffPart['op']): string =>
      full.blocks.flatMap((b) => (b.kind === 'same' ? [b.text] : b.kind === 'changed' && side(b.parts, keep) !== '' ? [side(b.parts, keep)] : [])).join('\n');
    const older = rebuild('deleted');
    const newer = rebuild('inserted');
    assert.deepEqual(words(older), words(lines.join('\n')));
    assert.equal(newer, changed.join('\n'));
    assert.equal(full.insertedWords, 5);
    assert.equal(full.deletedWords, words(lines[3] as string).length);
  });

  it('handles a text that appears or empties', () => {
    assert.deepEqual(diffText('', 'fresh words').blocks, [{ kind: 'changed', parts: [{ op: 'inserted', text: 'fresh words' }] }]);
    assert.deepEqual(diffText('old words', '').blocks, [{ kind: 'changed', parts: [{ op: 'deleted', text: 'old words' }] }]);
  });

  it('diffs a long page with a few edits quickly', () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `line ${i} ${'word '.repeat(i % 17)}end`).join('\n');
    const edited = text.replace('line 500 ', 'line 500 inserted ').replace('line 1500 ', 'line ');
    const started = performance.now();
    const diff = diffText(text, edited);
    const ms = performance.now() - started;
    assert.equal(diff.insertedWords, 1);
    assert.equal(diff.deletedWords, 1);
    assert.ok(ms < 500, `took ${ms.toFixed(0)} ms`);
  });
});
