import type { DiffBlock, DiffPart } from '../protocol/api.ts';

/*
 * A readable diff of two stored texts (words separated by spaces, a newline where a block
 * element ended): the lines are compared first, and each stretch of changed lines is compared
 * again word by word, so a paragraph that gained a word shows that word, not the paragraph
 * twice. Both passes are Myers' O(ND) shortest edit script ("An O(ND) Difference Algorithm and
 * Its Variations", 1986) over integer tokens. The trace it keeps grows with the square of the
 * edit distance, so the distance is capped: beyond it the stretch is shown replaced whole.
 */

export interface TextDiff {
  blocks: DiffBlock[];
  insertedWords: number;
  deletedWords: number;
  /** Some stretch differed beyond the edit cap and is shown replaced whole. */
  coarse: boolean;
}

export interface WordDiff {
  parts: DiffPart[];
  insertedWords: number;
  deletedWords: number;
  coarse: boolean;
}

export interface DiffOptions {
  /** Unchanged lines kept on each side of a change; longer unchanged runs are left out. Default 2. */
  context?: number;
  /** The most edits (lines, or words within a stretch) searched for. Default 2,000. */
  maxEdits?: number;
}

const SAME = 0;
const INSERT = 1;
const DELETE = 2;
type Op = typeof SAME | typeof INSERT | typeof DELETE;

const DEFAULT_CONTEXT = 2;
const DEFAULT_MAX_EDITS = 2_000;

/** Each distinct key as a small integer, shared by both sides so that equal keys compare equal. */
function interned(keys: readonly string[], ids: Map<string, number>): Int32Array {
  const out = new Int32Array(keys.length);
  keys.forEach((key, i) => {
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    out[i] = id;
  });
  return out;
}

/**
 * The shortest edit script turning `a` into `b`, one op per token of the script (SAME consumes
 * one of each, DELETE one of `a`, INSERT one of `b`), or undefined when it needs more than
 * `maxEdits` insertions and deletions. The common head and tail are taken off first.
 */
export function editScript(a: Int32Array, b: Int32Array, maxEdits: number): Op[] | undefined {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middle = shortestMiddle(a.subarray(head, a.length - tail), b.subarray(head, b.length - tail), maxEdits);
  if (middle === undefined) return undefined;
  return [...new Array<Op>(head).fill(SAME), ...middle, ...new Array<Op>(tail).fill(SAME)];
}

function shortestMiddle(a: Int32Array, b: Int32Array, maxEdits: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxEdits);
  const offset = limit + 1;
  // v[k + offset]: the furthest x reached on diagonal k (y = x - k).
  const v = new Int32Array(2 * limit + 3);
  // trace[d]: v over diagonals -d..d after step d, for walking the path back.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[k - 1 + offset] as number) < (v[k + 1 + offset] as number));
      let x = down ? (v[k + 1 + offset] as number) : (v[k - 1 + offset] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[k + offset] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return walkBack(trace, n, m);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return undefined;
}

function walkBack(trace: Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const previous = trace[d - 1] as Int32Array;
    const at = (k: number): number => previous[k + d - 1] as number;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(SAME);
      x--;
      y--;
    }
    ops.push(down ? INSERT : DELETE);
    x = prevX;
    y = prevY;
  }
  for (; x > 0; x--) ops.push(SAME);
  return ops.reverse();
}

/** A word with the white space after it; the text's leading white space is a token of its own. */
function wordTokens(text: string): string[] {
  return text.match(/^\s+|\S+\s*/g) ?? [];
}

function pushPart(parts: DiffPart[], op: DiffPart['op'], text: string): void {
  const last = parts[parts.length - 1];
  if (last !== undefined && last.op === op) last.text += text;
  else parts.push({ op, text });
}

/** Two texts compared word by word (white space does not count as a change). */
export function diffWords(from: string, to: string, maxEdits = DEFAULT_MAX_EDITS): WordDiff {
  const before = wordTokens(from);
  const after = wordTokens(to);
  const ids = new Map<string, number>();
  const script = editScript(interned(before.map((t) => t.trim()), ids), interned(after.map((t) => t.trim()), ids), maxEdits);
  const words = (tokens: string[]): number => tokens.filter((t) => t.trim() !== '').length;
  if (script === undefined) {
    const parts: DiffPart[] = [];
    if (from !== '') parts.push({ op: 'deleted', text: from });
    if (to !== '') parts.push({ op: 'inserted', text: to });
    return { parts, insertedWords: words(after), deletedWords: words(before), coarse: true };
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  let insertedWords = 0;
  let deletedWords = 0;
  for (const op of script) {
    if (op === SAME) {
      // The later version's spacing: a line break that moved shows where it is now.
      pushPart(parts, 'same', after[j++] as string);
      i++;
    } else if (op === INSERT) {
      const token = after[j++] as string;
      if (token.trim() !== '') insertedWords++;
      pushPart(parts, 'inserted', token);
    } else {
      const token = before[i++] as string;
      if (token.trim() !== '') deletedWords++;
      pushPart(parts, 'deleted', token);
    }
  }
  return { parts, insertedWords, deletedWords, coarse: false };
}

/** Two texts compared line by line, then word by word within each changed stretch. Identical texts give no blocks. */
export function diffText(from: string, to: string, options: DiffOptions = {}): TextDiff {
  const context = options.context ?? DEFAULT_CONTEXT;
  const maxEdits = options.maxEdits ?? DEFAULT_MAX_EDITS;
  if (from === to) return { blocks: [], insertedWords: 0, deletedWords: 0, coarse: false };
  const before = from === '' ? [] : from.split('\n');
  const after = to === '' ? [] : to.split('\n');
  const ids = new Map<string, number>();
  const script = editScript(interned(before, ids), interned(after, ids), maxEdits);
  const result: TextDiff = { blocks: [], insertedWords: 0, deletedWords: 0, coarse: script === undefined };
  if (script === undefined) {
    addChange(result, before, after, maxEdits);
    return result;
  }
  // Unchanged lines wait here until the next change (or the end) says how many of them to show.
  let same: string[] = [];
  let deleted: string[] = [];
  let inserted: string[] = [];
  let changes = 0;
  let i = 0;
  let j = 0;
  const flushChange = (): void => {
    if (deleted.length === 0 && inserted.length === 0) return;
    addSame(result, same, changes === 0 ? 0 : context, context);
    same = [];
    addChange(result, deleted, inserted, maxEdits);
    changes++;
    deleted = [];
    inserted = [];
  };
  for (const op of script) {
    if (op === SAME) {
      flushChange();
      same.push(after[j++] as string);
      i++;
    } else if (op === INSERT) {
      inserted.push(after[j++] as string);
    } else {
      deleted.push(before[i++] as string);
    }
  }
  flushChange();
  addSame(result, same, context, 0);
  return result;
}

/** An unchanged run between changes: `lead` lines after the change before it, `trail` before the next; the rest left out. */
function addSame(result: TextDiff, lines: string[], lead: number, trail: number): void {
  if (lines.length <= lead + trail + 1) {
    for (const text of lines) result.blocks.push({ kind: 'same', text });
    return;
  }
  for (const text of lines.slice(0, lead)) result.blocks.push({ kind: 'same', text });
  result.blocks.push({ kind: 'skipped', lines: lines.length - lead - trail });
  for (const text of lines.slice(lines.length - trail)) result.blocks.push({ kind: 'same', text });
}

function addChange(result: TextDiff, deleted: string[], inserted: string[], maxEdits: number): void {
  const words = diffWords(deleted.join('\n'), inserted.join('\n'), maxEdits);
  result.blocks.push({ kind: 'changed', parts: words.parts });
  result.insertedWords += words.insertedWords;
  result.deletedWords += words.deletedWords;
  if (words.coarse) result.coarse = true;
}
