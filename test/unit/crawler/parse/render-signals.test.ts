import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractHtml } from '../../../../crawler/parse/extract-html.ts';
import { browserNeedSign } from '../../../../crawler/parse/render-signals.ts';

const sign = (html: string): string | null => browserNeedSign(extractHtml(html, 'http://a.example/'), Buffer.byteLength(html));
const ARTICLE = `<p>${'Checkpoints bound the work of recovery after a crash. '.repeat(20)}</p><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`;

describe('signs that a page is built by scripts', () => {
  it('an empty application root', () => {
    assert.equal(sign('<html><body><div id="root"></div><script src="/app.js"></script></body></html>'), 'empty-app-root');
    assert.equal(sign('<div id="__next"><div></div></div><script src="/x.js"></script>'), 'empty-app-root', 'empty with empty children');
  });

  it('a noscript that asks for JavaScript', () => {
    assert.equal(sign(`${ARTICLE}<noscript>You need to enable JavaScript to run this app.</noscript>`), 'noscript-asks-for-javascript');
    assert.equal(sign(`${ARTICLE}<noscript><img src="/pixel.gif"></noscript>`), null, 'a tracking pixel asks for nothing');
  });

  it('scripts and almost no links, or little text for a sizable page', () => {
    assert.equal(sign('<p>Loading…</p><script src="/bundle.js"></script>'), 'scripts-and-few-links');
    const padded = `<script>${'var x = 1;'.repeat(600)}</script><p>Loading</p><a href="/1">1</a><a href="/2">2</a><a href="/3">3</a>`;
    assert.equal(sign(padded), 'little-text-for-its-size');
  });

  it('says nothing of an ordinary page, scripts or not', () => {
    assert.equal(sign(ARTICLE), null);
    assert.equal(sign(`${ARTICLE}<script src="/analytics.js"></script>`), null);
    assert.equal(sign(`<div id="root">${ARTICLE}</div><script src="/app.js"></script>`), null, 'a server-rendered app root has its text');
    assert.equal(sign('<p>Short page, no scripts.</p>'), null);
  });
});
