import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInertCss } from '../../../../crawler/viewer/sanitize-css.ts';
import { sanitizeStoredCss, type StoredCssResources } from '../../../../crawler/viewer/stored-css.ts';

const PNG = Buffer.from('png-bytes');
const WOFF2 = Buffer.from('woff2-bytes');
const dataUri = (type: string, body: Buffer): string => `data:${type};base64,${body.toString('base64')}`;

function store(entries: Record<string, [string, string | Buffer]>, budget = Infinity): StoredCssResources & { spent: number } {
  const resources = {
    spent: 0,
    lookup: (url: string) => {
      const entry = entries[url];
      return entry === undefined ? undefined : { contentType: entry[0], body: Buffer.from(entry[1]) };
    },
    fits: (bytes: number) => {
      if (resources.spent + bytes > budget) return false;
      resources.spent += bytes;
      return true;
    },
  };
  return resources;
}

const SHEET = 'https://docs.example/css/site.css';

describe('sanitizeStoredCss', () => {
  it('inlines stored images and fonts, resolved against the sheet that names them', () => {
    const resources = store({
      'https://docs.example/img/bg.png': ['image/png', PNG],
      'https://docs.example/fonts/body.woff2': ['font/woff2', WOFF2],
    });
    const out = sanitizeStoredCss(
      'body { background: url("../img/bg.png") no-repeat; color: #333 } @font-face { font-family: Body; src: url(../fonts/body.woff2) format("woff2") } p { font-family: Body }',
      SHEET,
      resources,
    );
    assert.equal(
      out,
      `body{background: url("${dataUri('image/png', PNG)}") no-repeat;color: #333;}@font-face{font-family: Body;src: url("${dataUri('font/woff2', WOFF2)}") format("woff2");}p{font-family: Body;}`,
    );
  });

  it('drops what the collection does not hold, and @font-face rules left without a source', () => {
    const out = sanitizeStoredCss(
      'a { background: url(https://tracker.example/x.png); color: red } @font-face { font-family: X; src: url(/missing.woff2) } i { cursor: url(/img/bg.png), auto }',
      SHEET,
      store({ 'https://docs.example/img/bg.png': ['image/svg+xml', '<svg/>'] }),
    );
    assert.equal(out, 'a{color: red;}', 'the unstored image, the unstored font and an SVG (not a raster image) are all dropped');
    assert.ok(isInertCss(out));
  });

  it('puts a stored imported sheet in place of its @import, two levels deep, within its media', () => {
    const resources = store({
      'https://docs.example/css/theme.css': ['text/css', '@import "deep/more.css"; h1 { color: teal; background: url(../img/bg.png) }'],
      'https://docs.example/css/deep/more.css': ['text/css', '@import "/css/never.css"; h2 { color: navy }'],
      'https://docs.example/css/never.css': ['text/css', 'h3 { color: red }'],
      'https://docs.example/img/bg.png': ['image/png', PNG],
      'https://docs.example/print.css': ['text/css', 'a { color: black }'],
    });
    const out = sanitizeStoredCss('@import url(theme.css); @import "/print.css" print; @import "https://elsewhere.example/x.css"; p { margin: 0 }', SHEET, resources);
    assert.equal(
      out,
      `h2{color: navy;}h1{color: teal;background: url("${dataUri('image/png', PNG)}");}@media print{a{color: black;}}p{margin: 0;}`,
      'theme.css and the sheet it imports are inlined, the third level and the unstored sheet are not',
    );
  });

  it('gives a page no way to forge an inlined reference', () => {
    const resources = store({ 'https://docs.example/img/bg.png': ['image/png', PNG] });
    const out = sanitizeStoredCss('a { background: forager-ref-0000000000000000-0 } b { background: url(/img/bg.png) } i { background: u\\72l(/img/bg.png) }', SHEET, resources);
    assert.equal(out.match(/url\(/g)?.length, 1, out);
    assert.match(out, /^a\{background: forager-ref-0000000000000000-0;\}b\{background: url\("data:image\/png;base64,/, 'a token the page wrote stays a word; the escaped url() is dropped');
    assert.doesNotMatch(out, /i\{/);
  });

  it('keeps within the page budget, and never lets a sheet close its element', () => {
    const resources = store({ 'https://docs.example/img/bg.png': ['image/png', PNG], 'https://docs.example/img/b.png': ['image/png', PNG] }, PNG.length);
    const out = sanitizeStoredCss('a { background: url(/img/bg.png) } b { background: url(/img/b.png) } p { content: "</style><script>" }', SHEET, resources);
    assert.equal(out.match(/data:image/g)?.length, 1, 'the second image is over the budget');
    assert.equal(resources.spent, PNG.length);
    assert.ok(!out.includes('<'), out);
  });
});
