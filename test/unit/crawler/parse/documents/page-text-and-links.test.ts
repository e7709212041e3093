import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { largestText, pageTextOf, spanUnder, type PdfTextItem } from '../../../../../crawler/parse/documents/pdf-page-text.ts';
import { documentLinks, urlsInText } from '../../../../../crawler/parse/documents/text-links.ts';

/** A text item drawn at (x, y), `size` high, 6 units a character wide. */
function item(str: string, x: number, y: number, hasEOL = false, size = 10): PdfTextItem {
  return { str, hasEOL, transform: [size, 0, 0, size, x, y], width: str.length * 6, height: size };
}

describe("a PDF page's text", () => {
  it('keeps lines where pdf.js ends them, collapses whitespace, drops empty lines and unmapped glyphs', () => {
    const page = pageTextOf([item('  Write-ahead', 72, 700), item(' ', 150, 700), item('logging\u0000', 156, 700, true), item('', 72, 686, true), item('  ', 72, 672, true), item('is  written\tfirst.', 72, 658, true), { type: 'beginMarkedContent' }]);
    assert.equal(page.text, 'Write-ahead logging\nis written first.');
    assert.deepEqual(
      page.runs.map((run) => page.text.slice(run.start, run.end)),
      ['Write-ahead', 'logging', 'is written first.'],
    );
  });

  it('names the words under a rectangle, a run cut in proportion and widened or narrowed to whole words', () => {
    const page = pageTextOf([item('See the manual on checkpoints today.', 72, 700, true), item('Next line', 72, 686)]);
    // "manual on" spans characters 8 to 17 of the run: x from 72 + 8·6 to 72 + 17·6, give or take part of a character.
    const span = spanUnder(page, [72 + 8 * 6 + 2, 697, 72 + 17 * 6 - 2, 711]);
    assert.ok(span !== undefined);
    assert.equal(page.text.slice(span.start, span.end), 'manual on');
    assert.equal(spanUnder(page, [300, 100, 400, 120]), undefined, 'no text under it');
    const below = spanUnder(page, [60, 684, 500, 696]);
    assert.equal(below === undefined ? '' : page.text.slice(below.start, below.end), 'Next line');
  });

  it("a first page's largest text, over its lines, is its headline; a page set in one size has none", () => {
    const titlePage = pageTextOf([item('R', 90, 562, false, 20.7), item(' ', 107, 562, false, 20.7), item('FAQ', 115, 562, true, 17.2), item('Frequently Asked Questions on R', 361, 539, true), item('Version 2022-09-08', 432, 526, true)]);
    assert.equal(largestText(titlePage), 'R FAQ');
    assert.equal(largestText(pageTextOf([item('One size', 72, 700, true), item('for all', 72, 686)])), '');
  });
});

describe("a document's links", () => {
  it('finds http(s) URLs in running text, without the punctuation after them', () => {
    const text = 'See https://a.example/x. Or (http://b.example/y), “https://c.example/z” and https://en.example/wiki/Foo_(bar); ftp://d.example/ is no web link.';
    assert.deepEqual(
      urlsInText(text).map((url) => url.href),
      ['https://a.example/x', 'http://b.example/y', 'https://c.example/z', 'https://en.example/wiki/Foo_(bar)'],
    );
  });

  it('resolves against the document, keeps each target once, prefers a marked link over the URL it covers, caps at maxLinks', () => {
    const text = 'Read https://a.example/guide then the appendix and https://b.example/ again https://a.example/guide';
    const guide = text.indexOf('https://a.example/guide');
    const appendix = text.indexOf('appendix');
    const marked = [
      { href: 'https://a.example/guide#top', span: { start: guide, end: guide + 'https://a.example/guide'.length }, at: guide },
      { href: 'appendix.pdf', span: { start: appendix, end: appendix + 'appendix'.length }, at: appendix },
      { href: 'mailto:someone@example.org', span: undefined, at: 0 },
    ];
    const { links, dropped } = documentLinks(text, marked, 'https://docs.example/papers/main.pdf', 3);
    assert.deepEqual(
      links.map((link) => [link.href, link.anchor]),
      [
        ['https://a.example/guide#top', 'https://a.example/guide'],
        ['https://docs.example/papers/appendix.pdf', 'appendix'],
        ['https://b.example/', 'https://b.example/'],
      ],
    );
    assert.equal(dropped, 1, 'the second https://a.example/guide is another target (no #top), past the cap');
    assert.equal(links[1]?.contextBefore, 'Read https://a.example/guide then the');
    assert.equal(links[1]?.contextAfter, 'and https://b.example/ again https://a.example/guide');
  });
});
