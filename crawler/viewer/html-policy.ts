/**
 * What a stored page may keep: an allowlist of elements and attributes. Anything not
 * named here is unwrapped (its text stays) or, for the elements listed in DROPPED, removed
 * with everything inside it. Inside <svg> and <math> only their own listed elements are
 * kept: an HTML element there is unwrapped, so the browser never meets markup whose
 * namespace our parser and the browser's could disagree about (the mXSS family).
 * Attributes that hold URLs are absent on purpose; <a href> and <img src> are handled by
 * the sanitiser itself.
 */

const words = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter((w) => w !== ''));

/** On every kept HTML element (plus aria-*). */
export const GLOBAL_ATTRIBUTES = words('id class title lang dir role hidden translate style');

const CELL = 'colspan rowspan headers scope abbr align valign width height nowrap bgcolor';
const ROW = 'align valign bgcolor';

/** Kept HTML elements, each with the attributes it keeps besides the global ones. */
export const HTML_ELEMENTS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ...['html', 'head', 'main', 'article', 'section', 'nav', 'aside', 'header', 'footer', 'address', 'hgroup',
    'figure', 'figcaption', 'em', 'strong', 'small', 's', 'cite', 'q', 'dfn', 'abbr', 'ruby', 'rt', 'rp',
    'code', 'var', 'samp', 'kbd', 'sub', 'sup', 'i', 'b', 'u', 'mark', 'bdi', 'bdo', 'span', 'br', 'wbr',
    'dl', 'dt', 'dd', 'blockquote', 'menu', 'summary', 'legend', 'label', 'center', 'big', 'tt', 'strike',
    'nobr', 'title', 'search'].map((name) => [name, words('')] as const),
  ['body', words('bgcolor text link vlink alink')],
  ['div', words('align')],
  ['p', words('align')],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((name) => [name, words('align')] as const),
  ['pre', words('width')],
  ['hr', words('align width size noshade color')],
  ['ol', words('start reversed type')],
  ['ul', words('type')],
  ['li', words('value type')],
  ['a', words('name')],
  ['img', words('alt width height')],
  ['font', words('color face size')],
  ['time', words('datetime')],
  ['data', words('value')],
  ['ins', words('datetime')],
  ['del', words('datetime')],
  ['details', words('open name')],
  ['dialog', words('open')],
  ['table', words('border cellpadding cellspacing width align bgcolor summary frame rules')],
  ['caption', words('align')],
  ['thead', words(ROW)],
  ['tbody', words(ROW)],
  ['tfoot', words(ROW)],
  ['tr', words(ROW)],
  ['td', words(CELL)],
  ['th', words(CELL)],
  ['col', words('span width align valign')],
  ['colgroup', words('span width align valign')],
  ['form', words('name')],
  ['fieldset', words('disabled name')],
  ['input', words('type name value checked disabled readonly placeholder size maxlength min max step multiple required')],
  ['button', words('type name value disabled')],
  ['select', words('name multiple size disabled required')],
  ['option', words('value selected disabled label')],
  ['optgroup', words('label disabled')],
  ['textarea', words('name rows cols disabled readonly placeholder maxlength wrap')],
  ['output', words('for name')],
  ['progress', words('value max')],
  ['meter', words('value min max low high optimum')],
  ['style', words('media')],
]);

/** Legacy preformatted elements, kept as <pre>. */
export const RENAMED: ReadonlyMap<string, string> = new Map([['xmp', 'pre'], ['listing', 'pre'], ['plaintext', 'pre']]);

/**
 * Removed with their content: code, remote resources whose fallback text is
 * browser-compatibility chatter, inert templates, and raw-text elements whose text is
 * markup (noframes, noembed). iframe and frame are removed too but leave a link behind
 * (see the sanitiser).
 */
export const DROPPED = words(`script template noframes noembed embed param portal fencedframe
  video audio source track area base link meta`);

/** Void elements: no end tag is ever written for them. */
export const VOID_ELEMENTS = words('area base br col embed hr img input keygen link meta param source track wbr frame');

/** Kept SVG elements: shapes, text and paint servers. No use, image, filters, animation, foreignObject or scripts. */
export const SVG_ELEMENTS: ReadonlyMap<string, string> = new Map(
  ['svg', 'g', 'defs', 'title', 'desc', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text',
    'tspan', 'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'marker', 'pattern', 'symbol']
    .map((name) => [name.toLowerCase(), name] as const),
);

/** SVG elements removed with their content. */
export const SVG_DROPPED = words(`script style foreignobject use image feimage filter animate animatemotion animatetransform
  animatecolor set discard mpath cursor font-face font-face-src font-face-uri metadata handler iframe video audio`);

export const SVG_ATTRIBUTES = words(`viewbox width height x y x1 y1 x2 y2 cx cy r rx ry fx fy d points pathlength transform
  fill fill-opacity fill-rule stroke stroke-width stroke-linecap stroke-linejoin stroke-dasharray stroke-dashoffset
  stroke-opacity stroke-miterlimit opacity color preserveaspectratio version font-family font-size font-weight font-style
  text-anchor dominant-baseline alignment-baseline baseline-shift dx dy rotate textlength lengthadjust letter-spacing
  word-spacing offset stop-color stop-opacity gradientunits gradienttransform spreadmethod clip-path clip-rule
  clippathunits mask maskunits maskcontentunits marker-start marker-mid marker-end markerwidth markerheight refx refy
  orient markerunits patternunits patterncontentunits patterntransform visibility display vector-effect shape-rendering
  text-rendering focusable id class style role`);

export const MATH_ELEMENTS = words(`math mi mn mo ms mtext mrow msup msub msubsup mfrac msqrt mroot mtable mtr mtd mlabeledtr
  mspace mstyle mpadded mphantom menclose munder mover munderover mmultiscripts mprescripts none semantics annotation`);

/** MathML elements removed with their content: annotation-xml is an HTML integration point, mglyph loads images. */
export const MATH_DROPPED = words('annotation-xml mglyph maction malignmark script style');

export const MATH_ATTRIBUTES = words(`mathvariant mathsize mathcolor mathbackground display displaystyle scriptlevel fence
  separator stretchy symmetric largeop movablelimits lspace rspace minsize maxsize accent accentunder linethickness
  numalign denomalign bevelled columnalign rowalign columnspan rowspan columnlines rowlines frame notation width height
  depth voffset dir id class style`);

/** Raster types a data: URI in <img src> may carry (the CSP allows img-src data:). */
export const DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)[;,]/i;

export const ARIA_ATTRIBUTE = /^aria-[a-z]+$/;
