import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInertCss, sanitizeStyleDeclarations, sanitizeStyleSheet } from '../../../../crawler/viewer/sanitize-css.ts';

describe('sanitizeStyleSheet', () => {
  it('keeps rules, media queries, nesting and keyframes', () => {
    assert.equal(
      sanitizeStyleSheet('h1 { color: red; font-weight: bold } @media print { a { color: black } } .card { &:hover { color: blue } }'),
      'h1{color: red;font-weight: bold;}@media print{a{color: black;}}.card{&:hover{color: blue;}}',
    );
    assert.equal(sanitizeStyleSheet('@keyframes spin { from { opacity: 0 } 50% { opacity: .5 } }'), '@keyframes spin{from{opacity: 0;}50%{opacity: .5;}}');
    assert.equal(sanitizeStyleSheet('@supports (display: grid) { div { display: grid } }'), '@supports (display: grid){div{display: grid;}}');
  });

  it('drops every way of naming a resource', () => {
    const loaders = [
      '@import url(http://evil.example/a.css);',
      '@import "http://evil.example/a.css";',
      "@import 'x.css' screen;",
      '@IMPORT url(x.css);',
      '@namespace svg url(http://www.w3.org/2000/svg);',
      '@font-face { font-family: f; src: url(http://evil.example/f.woff) }',
      '@-moz-document url-prefix() { p { color: red } }',
      'p { background: url(http://evil.example/x.png) }',
      'p { background: URL( "http://evil.example/x.png" ) }',
      'p { background: u\\72l(x.png) }',
      'p { background: \\75 \\72 \\6c (x.png) }',
      'p { background: u/* */rl(x.png) }',
      'p { background-image: image-set("x.png" 1x) }',
      'p { background-image: -webkit-image-set("x.png" 1x) }',
      'p { background-image: image("x.png") }',
      'p { background: cross-fade(url(a.png), url(b.png), 50%) }',
      'p { background: -moz-element(#x) }',
      'p { content: src("x.png") }',
      'p { --bg: url(x.png) }',
      'p { behavior: url(x.htc) }',
      'p { -moz-binding: url(x.xml#b) }',
      'p { width: expression(alert(1)) }',
      'p { cursor: url(x.cur), auto }',
      'p { list-style: square url(x.png) }',
      'p { mask: url(x.svg) }',
      'p:has(a[href="x"]) { filter: url(x.svg#f) }',
      '@media (min-width: 1px) { @import url(x.css); p { background: url(x) } }',
      '@unknown-rule { p { color: red } }',
    ];
    for (const css of loaders) {
      const out = sanitizeStyleSheet(css);
      assert.ok(isInertCss(out), `${css} → ${out}`);
      assert.doesNotMatch(out, /url|image|@import|@font|@namespace|binding|behavior|expression|src\(|element\(|cross-fade|document/i, css);
    }
  });

  it('keeps the harmless declarations next to a dropped one', () => {
    assert.equal(sanitizeStyleSheet('p { color: red; background: url(x); margin: 0 }'), 'p{color: red;margin: 0;}');
  });

  it('never lets a style sheet close its element', () => {
    const out = sanitizeStyleSheet('p { content: "</style><script>alert(1)</script>" } a<b { color: red }');
    assert.ok(!out.includes('<'), out);
    assert.match(out, /\\3c \/style>/);
  });

  it('recovers from broken CSS without losing later rules', () => {
    assert.equal(sanitizeStyleSheet('}}} p { color: red } '), 'p{color: red;}');
    assert.equal(sanitizeStyleSheet('p { color: red'), 'p{color: red;}');
    assert.equal(sanitizeStyleSheet('p { content: "unterminated\n; color: red } q { color: blue }'), 'p{color: red;}q{color: blue;}');
    assert.equal(sanitizeStyleSheet('/* unterminated comment p { color: red }'), '');
    assert.equal(sanitizeStyleSheet('p { background: red url(x; color: blue } q { color: green }'), '');
  });

  it('skips very deep nesting without recursion, and stays linear on huge input', () => {
    const deep = `${'a{'.repeat(200_000)}color:red${'}'.repeat(200_000)} p { color: blue }`;
    assert.equal(sanitizeStyleSheet(deep), 'p{color: blue;}');
    const big = 'p{color:red}'.repeat(200_000);
    const started = performance.now();
    assert.equal(sanitizeStyleSheet(big).length, 'p{color:red;}'.length * 200_000);
    assert.ok(performance.now() - started < 5_000);
  });
});

describe('sanitizeStyleDeclarations', () => {
  it('keeps plain declarations and drops resources, at-rules and blocks', () => {
    assert.equal(sanitizeStyleDeclarations('color: red; background: url(x.png); font-weight: bold'), 'color: red;font-weight: bold;');
    assert.equal(sanitizeStyleDeclarations('@import url(x.css); color: red'), 'color: red;');
    assert.equal(sanitizeStyleDeclarations('p { color: red } color: blue'), 'color: blue;');
    assert.equal(sanitizeStyleDeclarations('background-image: u\\rl(x)'), '');
    assert.equal(sanitizeStyleDeclarations('garbage without colon; color: red'), 'color: red;');
    assert.equal(sanitizeStyleDeclarations('font-family: "Helvetica Neue", sans-serif'), 'font-family: "Helvetica Neue", sans-serif;');
  });
});
