/*
 * One PDF page's text from pdf.js's text items: lines as pdf.js ends them (hasEOL), whitespace
 * collapsed within a line, empty lines dropped. Each item remembers where its characters landed
 * in the text and the box it was drawn in, so that a link annotation's rectangle can name the
 * words under it.
 */

/** The fields of a pdf.js TextItem the page text needs; marked-content items have no `str` and are skipped. */
export interface PdfTextItem {
  str: string;
  hasEOL: boolean;
  /** The text matrix [a b c d e f]: (e, f) is where the item's baseline starts, in PDF user space. */
  transform: number[];
  width: number;
  height: number;
}

/** Where one item's characters are in the page text, and its box (PDF user space, y up). */
export interface PlacedRun {
  start: number;
  end: number;
  left: number;
  right: number;
  baseline: number;
  top: number;
}

export interface PageText {
  text: string;
  runs: PlacedRun[];
}

/** C0 controls other than whitespace: glyphs pdf.js could not map come out as these. */
const CONTROL_CHARS = /[\u0000-\u0008\u000e-\u001f\u007f]/g;
const WHITESPACE_RUN = /\s+/g;

export function pageTextOf(items: Iterable<PdfTextItem | object>): PageText {
  const lines: string[] = [];
  const runs: PlacedRun[] = [];
  /** Length of the text of the lines ended so far, with the newlines between them. */
  let length = 0;
  let line = '';
  let lineRuns: PlacedRun[] = [];
  const endLine = (): void => {
    const kept = line.trimEnd();
    if (kept !== '') {
      const lineStart = lines.length === 0 ? 0 : length + 1;
      for (const run of lineRuns) runs.push({ ...run, start: lineStart + run.start, end: lineStart + Math.min(run.end, kept.length) });
      lines.push(kept);
      length = lineStart + kept.length;
    }
    line = '';
    lineRuns = [];
  };
  for (const item of items) {
    if (!('str' in item)) continue;
    let piece = item.str.replace(CONTROL_CHARS, '').replace(WHITESPACE_RUN, ' ');
    if (piece.startsWith(' ') && (line === '' || line.endsWith(' '))) piece = piece.slice(1);
    if (piece.length > 0) {
      const start = line.length;
      line += piece;
      if (piece.trim() !== '') lineRuns.push(placedRun(item, start, line.length));
    }
    if (item.hasEOL) endLine();
  }
  endLine();
  return { text: lines.join('\n'), runs };
}

function placedRun(item: PdfTextItem, start: number, end: number): PlacedRun {
  const left = item.transform[4] ?? 0;
  const baseline = item.transform[5] ?? 0;
  return { start, end, left, right: left + item.width, baseline, top: baseline + item.height };
}

/** How much larger than the page's usual text a heading's must be to count as one. */
const HEADING_SCALE = 1.3;

/**
 * The first run of text set clearly larger than the rest of the page (a title page's title,
 * over one or more lines): the text from the first run in about the page's largest size to the
 * last before a smaller one. '' when nothing on the page stands out so.
 */
export function largestText(page: PageText): string {
  const sized = page.runs.map((run) => ({ run, size: run.top - run.baseline })).filter(({ size }) => size > 0);
  if (sized.length === 0) return '';
  const largest = Math.max(...sized.map(({ size }) => size));
  if (largest < usualSize(sized) * HEADING_SCALE) return '';
  let start = -1;
  let end = -1;
  for (const { run, size } of sized) {
    // Within a fifth of the largest size: a title's lines are set alike, and small capitals ("R FAQ") a fifth smaller.
    if (size >= largest * 0.8) {
      if (start < 0) start = run.start;
      end = run.end;
    } else if (start >= 0) {
      break;
    }
  }
  return page.text.slice(start, end).replace(/\s+/g, ' ').trim();
}

/** The size most of the page's characters are set in: the median size, each run weighed by its length. */
function usualSize(sized: readonly { run: PlacedRun; size: number }[]): number {
  const bySize = [...sized].sort((a, b) => a.size - b.size);
  const half = bySize.reduce((sum, { run }) => sum + run.end - run.start, 0) / 2;
  let seen = 0;
  for (const { run, size } of bySize) {
    seen += run.end - run.start;
    if (seen >= half) return size;
  }
  return (bySize.at(-1) as { size: number }).size;
}

/** How far (in PDF units) a baseline may sit outside a link's rectangle and still count as under it. */
const BASELINE_TOLERANCE = 2;

/**
 * The span of the page text under a rectangle [x1, y1, x2, y2]: the part of each run whose
 * baseline lies in it, cut in proportion to how much of the run's width it covers, widened or
 * narrowed to whole words. Undefined when no text lies under it.
 */
export function spanUnder(page: PageText, rect: readonly number[]): { start: number; end: number } | undefined {
  const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] = rect;
  const left = Math.min(x1, x2);
  const right = Math.max(x1, x2);
  const bottom = Math.min(y1, y2) - BASELINE_TOLERANCE;
  const top = Math.max(y1, y2) + BASELINE_TOLERANCE;
  let start = Number.POSITIVE_INFINITY;
  let end = -1;
  for (const run of page.runs) {
    if (run.baseline < bottom || run.baseline > top || run.right <= left || run.left >= right) continue;
    const width = run.right - run.left;
    const length = run.end - run.start;
    const from = width > 0 ? Math.max(0, (left - run.left) / width) : 0;
    const to = width > 0 ? Math.min(1, (right - run.left) / width) : 1;
    start = Math.min(start, run.start + Math.round(from * length));
    end = Math.max(end, run.start + Math.round(to * length));
  }
  if (end < 0) return undefined;
  const span = { start: nearestWordEdge(page.text, start), end: nearestWordEdge(page.text, Math.min(end, page.text.length)) };
  return span.end > span.start ? span : undefined;
}

const isSpace = (text: string, at: number): boolean => at < 0 || at >= text.length || /\s/.test(text[at] as string);

/** `at` if it is between words, else the nearer end of the word it cuts. */
function nearestWordEdge(text: string, at: number): number {
  if (isSpace(text, at - 1) || isSpace(text, at)) return at;
  let before = at;
  while (!isSpace(text, before - 1)) before--;
  let after = at;
  while (!isSpace(text, after)) after++;
  return at - before <= after - at ? before : after;
}
