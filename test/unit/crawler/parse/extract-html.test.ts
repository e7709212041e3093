import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAX_PARSER_DEPTH } from '../../../../crawler/parse/bounded-parse.ts';
import { effectiveBase, extractHtml, isFollowableHref, searchIndexOfScript, type ExtractedLink } from '../../../../crawler/parse/extract-html.ts';
import { collapseWhitespace } from '../../../../crawler/parse/html-whitespace.ts';
import { parseMetaRefresh, parseRobotsDirectives } from '../../../../crawler/parse/meta-directives.ts';

const PAGE = 'https://example.org/articles/bees.html';

/** The fields a test compares, in a compact order: href, anchor, before, after. */
function summary(links: ExtractedLink[]): [string, string, string, string][] {
  return links.map((l) => [l.href, l.anchor, l.contextBefore, l.contextAfter]);
}

test('a realistic article: title, text, links, directives', () => {
  const html = readFileSync(new URL('../../../fixtures/html/article.html', import.meta.url), 'utf8');
  const page = extractHtml(html, PAGE);
  assert.equal(page.title, 'Bees & Pollination');
  assert.equal(page.lang, 'en-GB');
  assert.equal(page.canonical, 'https://example.org/bees');
  assert.equal(page.baseHref, '/articles/');
  assert.equal(page.resolvedBase, 'https://example.org/articles/');
  assert.deepEqual(page.robots, { noindex: false, nofollow: true });
  assert.equal(page.metaRefresh, undefined);
  assert.equal(
    page.text,
    'Home | Topics\nWhy bees matter\n' +
      'Honey bees pollinate a large share of the crops we eat, and wild pollinators matter just as much for flowering plants everywhere.\n' +
      'Read the full study.\nWrite to us\nComments\n\u00a9 2024 Example',
  );
  assert.equal(page.wordCount, 39);
  assert.equal(page.textTruncated, false);
  assert.deepEqual(summary(page.links), [
    ['/fr/bees', '', '', ''],
    ['/bees?page=2', '', '', ''],
    ['/', 'Home', '', '| Topics Why bees matter Honey bees pollinate a large'],
    ['/topics', 'Topics', 'Home |', 'Why bees matter Honey bees pollinate a large share of'],
    ['pollination.html', 'wild pollinators', 'pollinate a large share of the crops we eat, and', 'matter just as much for flowering plants everywhere. Read the'],
    // "study." straddles the end of the link, so it belongs to neither context.
    ['https://example.net/study.pdf', 'full study', 'matter just as much for flowering plants everywhere. Read the', 'Write to us Comments \u00a9 2024 Example'],
    ['/share', 'Share this', 'plants everywhere. Read the full study. Write to us Comments', '\u00a9 2024 Example'],
  ]);
  assert.deepEqual(
    page.links.map((l) => [l.tag, l.rel, l.nofollow]),
    [
      ['link', 'alternate', false],
      ['link', 'next', false],
      ['a', '', false],
      ['a', '', false],
      ['a', 'nofollow', true],
      ['a', 'sponsored noopener', false],
      ['a', '', false],
    ],
  );
  assert.equal(page.linksDropped, 0);
});

test('script, style, noscript, template and svg contents are not text; script markup makes no links', () => {
  const html =
    '<div>alpha</div><script>document.write("</div><a href=\'/bad\'>bad link</a>"); var x = 1 < 2;</script>' +
    '<style>div::after { content: "</style-ish>" }</style><noscript>no script text <a href="/ns">ns</a></noscript>' +
    '<template><p>template text</p><a href="/tpl">tpl</a></template><svg><title>Icon</title><text>svg text</text></svg>' +
    '<div>omega</div>';
  const page = extractHtml(html, PAGE);
  assert.equal(page.text, 'alpha\nomega');
  assert.equal(page.wordCount, 2);
  // The noscript link is a real link for clients without JavaScript; its text is not visible text.
  assert.deepEqual(summary(page.links), [['/ns', 'ns', 'alpha', 'omega']]);
});

test('block elements separate words; inline elements do not', () => {
  const page = extractHtml(
    '<div>one</div><div>two</div><p>th<b>re</b>e<i> four</i></p><table><tr><td>c1</td><td>c2</td></tr><tr><th>c3</th></tr></table>line<br>break<ul><li>x<li>y</ul>',
    PAGE,
  );
  assert.equal(page.text, 'one\ntwo\nthree four\nc1 c2\nc3\nline\nbreak\nx\ny');
  assert.equal(page.wordCount, 11);
});

test('entities are decoded in text, title, anchors and attributes', () => {
  const page = extractHtml(
    '<title>A &amp; B &#x27;q&#39;</title><p>x&nbsp;y AT&amp;T &lt;tag&gt; caf&eacute;</p><a href="/s?a=1&amp;b=2" title="T&amp;C">R&amp;D</a>',
    PAGE,
  );
  assert.equal(page.title, "A & B 'q'");
  assert.equal(page.text, 'x y AT&T <tag> caf\u00e9\nR&D');
  assert.deepEqual(summary(page.links), [['/s?a=1&b=2', 'R&D', 'x y AT&T <tag> caf\u00e9', '']]);
});

test('anchor fallbacks: image alt, then title; area alt; frames', () => {
  const html =
    '<p>Start <a href="/logo"><img src="l.png" alt=" Company   logo "></a> mid ' +
    '<a href="/t" title="Titled link"></a> end</p>' +
    '<a href="/both" title="ignored">visible <img alt="ignored too"></a>' +
    '<map><area href="/area1" alt="Region one"><area href="/area2" title="Region two"><area href="/area3"></map>' +
    '<iframe src="/embed" title="An embed">fallback text</iframe>';
  const page = extractHtml(html, PAGE);
  assert.deepEqual(
    page.links.map((l) => [l.tag, l.href, l.anchor]),
    [
      ['a', '/logo', 'Company logo'],
      ['a', '/t', 'Titled link'],
      ['a', '/both', 'visible'],
      ['area', '/area1', 'Region one'],
      ['area', '/area2', 'Region two'],
      ['area', '/area3', ''],
      ['iframe', '/embed', 'An embed'],
    ],
  );
  assert.equal(page.text, 'Start mid end\nvisible');
  assert.deepEqual(page.links[0] && [page.links[0].contextBefore, page.links[0].contextAfter], ['Start', 'mid end visible']);

  const frames = extractHtml('<frameset cols="50%,50%"><frame src="left.html"><frame src=" right.html "></frameset>', PAGE);
  assert.deepEqual(summary(frames.links), [
    ['left.html', '', '', ''],
    ['right.html', '', '', ''],
  ]);
  assert.deepEqual(frames.links.map((l) => l.tag), ['frame', 'frame']);
});

test('hrefs that can never be pages are skipped; others are kept raw but trimmed', () => {
  const hrefs = [
    '', '   ', '#', '#top', ' #x', 'javascript:void(0)', '  JavaScript:alert(1)', 'java\tscript:x', 'MAILTO:a@b.c',
    'tel:+441234', 'data:text/html,hi', 'page.html#frag', '?q=1', '//cdn.example/x', ' /spaced ', 'javascript-guide.html',
    'https://example.com/',
  ];
  const html = hrefs.map((h, i) => `<a href="${h}">l${i}</a>`).join(' ') + '<a>no href</a><a name="anchor">named</a>';
  const page = extractHtml(html, PAGE);
  assert.deepEqual(
    page.links.map((l) => [l.href, l.anchor]),
    [
      ['page.html#frag', 'l11'],
      ['?q=1', 'l12'],
      ['//cdn.example/x', 'l13'],
      ['/spaced', 'l14'],
      ['javascript-guide.html', 'l15'],
      ['https://example.com/', 'l16'],
    ],
  );
  assert.equal(isFollowableHref('vbscript.html'), true);
  assert.equal(isFollowableHref('data:'), false);
  assert.equal(isFollowableHref('tel'), true);
});

test('link context is ten words either side, excluding the anchor and any word the link cuts', () => {
  const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
  const html = `<p>${words.slice(0, 15).join(' ')} <a href="/mid">the anchor</a> ${words.slice(15).join(' ')}</p>`;
  const page = extractHtml(html, PAGE);
  assert.deepEqual(summary(page.links), [['/mid', 'the anchor', words.slice(5, 15).join(' '), words.slice(15, 25).join(' ')]]);

  const glued = extractHtml('<p>one two foo<a href="/g">bar</a>baz three four</p>', PAGE);
  assert.equal(glued.text, 'one two foobarbaz three four');
  assert.deepEqual(summary(glued.links), [['/g', 'bar', 'one two', 'three four']]);

  const atEdges = extractHtml('<a href="/first">first</a><p>middle</p><a href="/last">last</a>', PAGE);
  assert.deepEqual(summary(atEdges.links), [
    ['/first', 'first', '', 'middle last'],
    ['/last', 'last', 'first middle', ''],
  ]);
});

test('anchors with blocks inside, nested anchors and stray end tags', () => {
  const block = extractHtml('<p>pre</p><a href="/card"><div>Card title</div><div>Card body</div></a><p>post</p>', PAGE);
  assert.deepEqual(summary(block.links), [['/card', 'Card title Card body', 'pre', 'post']]);

  // A new <a> closes the open one, as the HTML parsing algorithm does.
  const nested = extractHtml('<p>one <a href="/1">first <b><a href="/2">second</a> tail</b></a> after</p>', PAGE);
  assert.deepEqual(summary(nested.links), [
    ['/1', 'first', 'one', 'second tail after'],
    ['/2', 'second', 'one first', 'tail after'],
  ]);
  assert.equal(nested.text, 'one first second tail after');

  const stray = extractHtml('<p>x </a> y <a href="/z">z</a></a> w</p>', PAGE);
  assert.equal(stray.text, 'x y z w');
  assert.deepEqual(summary(stray.links), [['/z', 'z', 'x y', 'w']]);
});

test('malformed and truncated documents parse without throwing', () => {
  const cutMidTag = extractHtml('<p>Hello <a href="/x">x</a> world <a href="/y" cla', PAGE);
  assert.equal(cutMidTag.text, 'Hello x world');
  assert.deepEqual(summary(cutMidTag.links), [['/x', 'x', 'Hello', 'world']]);

  const cutMidAttribute = extractHtml('<title>T</title><p>Hello <a href="/y', PAGE);
  assert.equal(cutMidAttribute.title, 'T');
  assert.equal(cutMidAttribute.text, 'Hello');
  assert.deepEqual(cutMidAttribute.links, []);

  const cutMidComment = extractHtml('<p>Hello</p><!-- secret <a href="/c">c</a>', PAGE);
  assert.equal(cutMidComment.text, 'Hello');
  assert.deepEqual(cutMidComment.links, []);

  // An <a> never closed runs to the end of the document.
  const unclosed = extractHtml('<p>start <a href="/u">open link <div>inside</div> more', PAGE);
  assert.equal(unclosed.text, 'start open link\ninside\nmore');
  assert.deepEqual(summary(unclosed.links), [['/u', 'open link inside more', 'start', '']]);

  const upper = extractHtml('<HTML LANG="fr"><HEAD><TITLE>Up</TITLE></HEAD><BODY><A HREF="/U" REL="NoFollow">Upper</A><P>para</BODY></HTML>', PAGE);
  assert.equal(upper.title, 'Up');
  assert.equal(upper.lang, 'fr');
  assert.equal(upper.text, 'Upper\npara');
  assert.deepEqual(summary(upper.links), [['/U', 'Upper', '', 'para']]);
  assert.equal(upper.links[0]?.nofollow, true);

  for (const junk of ['', '<', '</', '<a', '<a href=', '<!--', '<![CDATA[', '<title>', '<script>', '&', '&#x', '<svg><a href="/s">']) {
    assert.doesNotThrow(() => extractHtml(junk, PAGE), junk);
  }
});

test('XHTML with CDATA sections and self-closing tags', () => {
  const page = extractHtml(
    '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" xml:lang="de"><head><title>X</title>' +
      '<script type="text/javascript">//<![CDATA[\nvar a = "<a href=\'/no\'>no</a>";\n//]]></script></head>' +
      '<body><p>Vis<![CDATA[hidden cdata]]>ible</p><br/><p><a href="/ok">ok</a></p></body></html>',
    PAGE,
  );
  assert.equal(page.title, 'X');
  assert.equal(page.lang, 'de');
  // text/html semantics: CDATA outside foreign content is a comment.
  assert.equal(page.text, 'Visible\nok');
  assert.deepEqual(summary(page.links), [['/ok', 'ok', 'Visible', '']]);
});

test('title: the first <title>, even in the body, never script text or an SVG title', () => {
  const late = extractHtml('<html><head><script>var t = "<title>Fake</title>";</script></head><body><h1>H</h1><title> Late \n Title </title><p>body</p><title>Second</title>', PAGE);
  assert.equal(late.title, 'Late Title');
  assert.equal(late.text, 'H\nbody');

  const svgFirst = extractHtml('<svg><title>Icon name</title></svg><title>Page name</title>', PAGE);
  assert.equal(svgFirst.title, 'Page name');

  assert.equal(extractHtml('<p>no title here</p>', PAGE).title, '');
  // An unclosed title swallows the rest, as in browsers, but is bounded.
  const unclosed = extractHtml('<title>Never closed ' + 'word '.repeat(1000), PAGE);
  assert.ok(unclosed.title.startsWith('Never closed word word'));
  assert.equal(unclosed.title.length, 1000);
  assert.equal(unclosed.text, '');
});

test('link elements: canonical, alternate/next/prev are links, resources are not', () => {
  const page = extractHtml(
    '<link rel="Canonical" href=" https://example.org/c "><link rel="canonical" href="/second">' +
      '<link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="prev" href="/p1"><link rel="next" href="/p3">' +
      '<link rel="alternate stylesheet" href="/alt.css"><link rel="stylesheet" href="/s.css"><link rel="preload" href="/font.woff2">' +
      '<link rel="alternate icon" href="/i.svg"><link rel="alternate" href="javascript:x"><link rel="next">',
    PAGE,
  );
  assert.equal(page.canonical, 'https://example.org/c');
  assert.deepEqual(
    page.links.map((l) => [l.tag, l.href, l.rel]),
    [
      ['link', '/feed.xml', 'alternate'],
      ['link', '/p1', 'prev'],
      ['link', '/p3', 'next'],
    ],
  );
});

test('base href and effectiveBase', () => {
  assert.equal(extractHtml('<base target="_top"><base href=" /b/ "><base href="/ignored/">', PAGE).baseHref, '/b/');
  assert.equal(extractHtml('<p>x</p>', PAGE).baseHref, undefined);
  assert.equal(extractHtml('<p>x</p>', PAGE).resolvedBase, PAGE);
  assert.equal(effectiveBase(PAGE, '/b/'), 'https://example.org/b/');
  assert.equal(effectiveBase(PAGE, '../up/'), 'https://example.org/up/');
  assert.equal(effectiveBase(PAGE, 'https://cdn.example.com/x/'), 'https://cdn.example.com/x/');
  assert.equal(effectiveBase(PAGE, 'javascript:alert(1)'), PAGE);
  assert.equal(effectiveBase(PAGE, 'ftp://files.example.org/'), PAGE);
  assert.equal(effectiveBase(PAGE, 'http://[bad'), PAGE);
  assert.equal(effectiveBase(PAGE, ''), PAGE);
  assert.equal(effectiveBase(PAGE, undefined), PAGE);
});

test('meta refresh', () => {
  assert.deepEqual(parseMetaRefresh('5; url=/next'), { delaySeconds: 5, url: '/next' });
  assert.deepEqual(parseMetaRefresh("0;URL='http://example.com/a b'"), { delaySeconds: 0, url: 'http://example.com/a b' });
  assert.deepEqual(parseMetaRefresh('  3 , URL = "/q" trailing'), { delaySeconds: 3, url: '/q' });
  assert.deepEqual(parseMetaRefresh('0; /bare'), { delaySeconds: 0, url: '/bare' });
  assert.deepEqual(parseMetaRefresh('10'), { delaySeconds: 10 });
  assert.deepEqual(parseMetaRefresh('1.5; url=/x'), { delaySeconds: 1, url: '/x' });
  assert.equal(parseMetaRefresh('soon; url=/x'), undefined);
  assert.equal(parseMetaRefresh(''), undefined);
  assert.equal(parseMetaRefresh('5x; url=/x'), undefined);

  const page = extractHtml(
    '<meta http-equiv="Refresh" content="2; URL=/moved"><meta http-equiv="refresh" content="0; url=/other">',
    PAGE,
  );
  assert.deepEqual(page.metaRefresh, { delaySeconds: 2, url: '/moved' });
});

test('parseRobotsDirectives', () => {
  assert.deepEqual(parseRobotsDirectives('noindex, nofollow'), { noindex: true, nofollow: true });
  assert.deepEqual(parseRobotsDirectives('NOINDEX'), { noindex: true, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('none'), { noindex: true, nofollow: true });
  assert.deepEqual(parseRobotsDirectives('all'), { noindex: false, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('index, follow'), { noindex: false, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('noindex nofollow'), { noindex: true, nofollow: true });
  assert.deepEqual(parseRobotsDirectives('all, nofollow'), { noindex: false, nofollow: true });
  assert.deepEqual(parseRobotsDirectives('googlebot: noindex'), { noindex: false, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('googlebot: noindex, nofollow'), { noindex: false, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('Forager: noindex'), { noindex: true, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('googlebot: none, forager: nofollow'), { noindex: false, nofollow: true });
  assert.deepEqual(parseRobotsDirectives('mybot: noindex', 'MyBot'), { noindex: true, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow'), { noindex: false, nofollow: true });
  assert.deepEqual(parseRobotsDirectives('max-snippet: 20, noindex'), { noindex: true, nofollow: false });
  assert.deepEqual(parseRobotsDirectives(''), { noindex: false, nofollow: false });
});

test('robots meta tags combine; other agents\' tags are ignored', () => {
  const page = extractHtml(
    '<meta name="robots" content="nofollow"><meta name="googlebot" content="noindex"><meta name="ROBOTS" content="otherbot: noindex">',
    PAGE,
  );
  assert.deepEqual(page.robots, { noindex: false, nofollow: true });
  const ours = extractHtml('<meta name="forager" content="noindex"><meta name="robots" content="all">', PAGE);
  assert.deepEqual(ours.robots, { noindex: true, nofollow: false });
  const custom = extractHtml('<meta name="forager" content="noindex"><meta name="mybot" content="none">', PAGE, { agentToken: 'MyBot' });
  assert.deepEqual(custom.robots, { noindex: true, nofollow: true });
});

test('lang from <html lang>, else Content-Language meta', () => {
  assert.equal(extractHtml('<html lang=" pt-BR "><p>x', PAGE).lang, 'pt-BR');
  assert.equal(extractHtml('<meta http-equiv="content-language" content="de, en"><p>x', PAGE).lang, 'de');
  assert.equal(extractHtml('<p>x', PAGE).lang, undefined);
});

test('maxLinks caps the links and counts the rest', () => {
  const html = Array.from({ length: 8 }, (_, i) => `<a href="/l${i}">a${i}</a>`).join(' ');
  const page = extractHtml(html, PAGE, { maxLinks: 5 });
  assert.deepEqual(page.links.map((l) => l.href), ['/l0', '/l1', '/l2', '/l3', '/l4']);
  assert.equal(page.linksDropped, 3);
  // Text is unaffected by the cap.
  assert.equal(page.text, 'a0 a1 a2 a3 a4 a5 a6 a7');
});

test('maxTextChars caps the text at a word boundary; later links still get their anchors', () => {
  const page = extractHtml('<p>alpha beta gamma delta</p><p>epsilon</p><a href="/late">late link</a>', PAGE, { maxTextChars: 14 });
  assert.equal(page.text, 'alpha beta');
  assert.equal(page.wordCount, 2);
  assert.equal(page.textTruncated, true);
  assert.deepEqual(summary(page.links), [['/late', 'late link', 'alpha beta', '']]);

  const exact = extractHtml('<p>alpha beta</p>', PAGE, { maxTextChars: 10 });
  assert.equal(exact.text, 'alpha beta');
  assert.equal(exact.textTruncated, false);

  const oneLongWord = extractHtml('<p>' + 'x'.repeat(50) + '</p>', PAGE, { maxTextChars: 20 });
  assert.equal(oneLongWord.text, '');
  assert.equal(oneLongWord.textTruncated, true);
});

test('collapseWhitespace', () => {
  assert.equal(collapseWhitespace('  a \n\t b\u00a0\u00a0c  '), 'a b c');
  assert.equal(collapseWhitespace(''), '');
  assert.equal(collapseWhitespace(' \n '), '');
  assert.equal(collapseWhitespace('one'), 'one');
});

test('10,000 links: every anchor and context is right', () => {
  // A model of the page's words, built alongside the HTML, gives the expected contexts.
  const words: string[] = [];
  const expected: { href: string; anchor: string; start: number; end: number }[] = [];
  const parts: string[] = ['<!doctype html><html><head><title>Many links</title></head><body>'];
  for (let i = 0; i < 10_000; i++) {
    if (i % 100 === 0) parts.push(i === 0 ? '<ul>' : '</ul><ul>');
    const lead = [`w${i}a`, `w${i}b&amp;c`];
    const anchorWords = i % 7 === 0 ? ['item', `#${i}`, 'details'] : [`link${i}`];
    const anchorHtml = i % 7 === 0 ? `item <b>#${i}</b>\n details` : `link${i}`;
    parts.push(`<li>${lead.join(' ')} <a href="/item/${i}?ref=list&amp;n=${i}">${anchorHtml}</a>`);
    words.push(`w${i}a`, `w${i}b&c`);
    const start = words.length;
    words.push(...anchorWords);
    expected.push({ href: `/item/${i}?ref=list&n=${i}`, anchor: anchorWords.join(' '), start, end: words.length });
  }
  parts.push('</ul></body></html>');
  const html = parts.join('');

  const page = extractHtml(html, PAGE);
  assert.equal(page.links.length, 10_000);
  assert.equal(page.linksDropped, 0);
  assert.equal(page.wordCount, words.length);
  assert.equal(page.text.replaceAll('\n', ' '), words.join(' '));
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const link = page.links[i]!;
    assert.equal(link.href, e.href);
    assert.equal(link.anchor, e.anchor);
    assert.equal(link.contextBefore, words.slice(Math.max(0, e.start - 10), e.start).join(' '), `before ${i}`);
    assert.equal(link.contextAfter, words.slice(e.end, e.end + 10).join(' '), `after ${i}`);
  }
});

test("a documentation site's scripts reveal its search index: Sphinx and MkDocs", () => {
  const sphinx = extractHtml(
    `<html><head><title>os</title>
      <script src="../_static/jquery.js"></script>
      <script data-url_root="../" id="documentation_options" src="../_static/documentation_options.js?v=5929fcd5"></script>
      <script src="../_static/documentation_options.js#again"></script>
    </head><body><p>Text.</p></body></html>`,
    'https://docs.example/en/library/os.html',
  );
  assert.deepEqual(sphinx.siteResources, [{ kind: 'search-index', href: 'https://docs.example/en/searchindex.js' }]);
  assert.equal(sphinx.text, 'Text.', 'a script adds no text');

  const mkdocs = extractHtml('<script src="../search/main.js"></script><script src="https://cdn.example/x.js"></script>', 'https://site.example/docs/wal/');
  assert.deepEqual(mkdocs.siteResources, [{ kind: 'search-index', href: 'https://site.example/docs/search/search_index.json' }]);

  const based = extractHtml('<base href="https://docs.example/v2/"><script src="_static/documentation_options.js"></script>', 'https://docs.example/v2/a/b.html');
  assert.deepEqual(based.siteResources, [{ kind: 'search-index', href: 'https://docs.example/v2/searchindex.js' }], 'resolved against <base>');
});

test('only those script paths, at a path boundary, count; at most four per page', () => {
  const none = extractHtml(
    `<script src="/my_static/documentation_options.js"></script>
     <script src="/research/main.js"></script>
     <script src="/search/main.json"></script>
     <script src="javascript:alert(1)"></script>
     <script>var src = "/_static/documentation_options.js";</script>
     <template><script src="/_static/documentation_options.js"></script></template>`,
    'https://docs.example/',
  );
  assert.deepEqual(none.siteResources, []);
  const many = extractHtml(
    Array.from({ length: 9 }, (_, i) => `<script src="/v${i}/_static/documentation_options.js"></script>`).join(''),
    'https://docs.example/',
  );
  assert.deepEqual(
    many.siteResources.map((r) => r.href),
    [0, 1, 2, 3].map((i) => `https://docs.example/v${i}/searchindex.js`),
  );
  assert.equal(searchIndexOfScript('search/main.js?v=1', 'https://site.example/'), 'https://site.example/search/search_index.json');
  assert.equal(searchIndexOfScript('//[bad', 'https://site.example/'), undefined);
});

test('deep nesting costs linear time, and the page after it is still read', () => {
  const time = (html: string): { ms: number; page: ReturnType<typeof extractHtml> } => {
    const started = performance.now();
    const page = extractHtml(html, 'http://a.example/');
    return { ms: performance.now() - started, page };
  };
  const depth = 160_000;
  const deep = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(depth)}deep words${'</div>'.repeat(depth)}<p>after the nest <a href="/next">next page</a></p></body></html>`;
  // The same bytes without nesting: open and closed at once.
  const flat = `<html><head><title>Flat</title></head><body>${'<div></div>'.repeat(depth)}deep words<p>after the nest <a href="/next">next page</a></p></body></html>`;
  time(flat);
  const flatRun = time(flat);
  const deepRun = time(deep);
  // Unbounded, htmlparser2 took about 10 s here against tens of milliseconds flat.
  assert.ok(deepRun.ms < 10 * flatRun.ms + 200, `deep ${deepRun.ms.toFixed(0)} ms, flat ${flatRun.ms.toFixed(0)} ms`);
  assert.equal(deepRun.page.title, 'Deep');
  assert.match(deepRun.page.text, /deep words/);
  assert.match(deepRun.page.text, /after the nest/);
  assert.deepEqual(deepRun.page.links.map((l) => l.href), ['/next']);
});

test('an element left open when the parser restarts does not hide the rest of the page', () => {
  const html = `<body><template>${'<div>'.repeat(MAX_PARSER_DEPTH + 5)}inert</template><p>body text <a href="/x">x</a></p></body>`;
  const page = extractHtml(html, 'http://a.example/');
  assert.match(page.text, /body text/);
  assert.ok(page.links.some((l) => l.href === '/x'));
});
