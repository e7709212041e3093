import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cssReferences } from '../../../../crawler/parse/css-references.ts';

describe('what a stylesheet refers to', () => {
  it('finds url() in every quoting, and @import, once each, without data: URIs or fragments', () => {
    const css = `@import "base.css"; @import url('theme.css');
      @font-face { src: url(fonts/a.woff2) format('woff2'), url("fonts/a.woff") }
      body { background: url( 'img/bg.png' ) } .x { background: url(data:image/png;base64,AAA) } .y { filter: url(#blur) }
      .z { background: url(img/bg.png) }`;
    assert.deepEqual(cssReferences(css, 100), ['base.css', 'theme.css', 'fonts/a.woff2', 'fonts/a.woff', 'img/bg.png']);
  });

  it('stops at the limit', () => {
    const css = Array.from({ length: 50 }, (_, i) => `.c${i} { background: url(i${i}.png) }`).join('\n');
    assert.equal(cssReferences(css, 10).length, 10);
  });
});
