/**
 * CSS of stored pages, kept for readability but unable to fetch anything. Every
 * declaration or rule prelude that names a resource (url(), image-set(), src(), ...) is
 * dropped, CSS escapes decoded first so that `u\72l(` counts as `url(`; so are at-rules
 * that load or define remote things (@import, @font-face, @namespace, @-moz-document)
 * and at-rules this module does not know. A caller that inlined a stored font (see
 * stored-css.ts) may keep @font-face rules that still have a `src` once sanitised. The Content-Security-Policy blocks such loads
 * as well; this is the second line. Linear in the input, bounded recursion, never throws.
 */

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const SEMICOLON = 0x3b;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;
const NEWLINE = 0x0a;

/** Nested blocks deeper than this are skipped without recursion. */
const MAX_BLOCK_DEPTH = 24;

const RESOURCE_FUNCTION = /(?:url|src|image|image-set|cross-fade|element|expression|paint)\(/;
const FORBIDDEN_TEXT = /@import|binding|behavior|javascript:|vbscript:/;
const CSS_ESCAPE = /\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\([\s\S])/g;
const SPACE_OR_COMMENT = /\s+|\/\*[\s\S]*?\*\//g;

/** At-rules whose block holds rules. */
const GROUPING_AT_RULES = new Set(['media', 'supports', 'layer', 'container', 'scope', 'starting-style',
  'keyframes', '-webkit-keyframes', '-moz-keyframes', '-o-keyframes']);
/** At-rules whose block holds declarations. */
const DECLARATION_AT_RULES = new Set(['page', 'property', 'counter-style']);

function decodeEscape(_match: string, hex: string | undefined, char: string | undefined): string {
  if (hex === undefined) return char ?? '';
  const code = Number.parseInt(hex, 16);
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
}

/** Whether a declaration or prelude can name no resource, however it is spelt. */
export function isInertCss(text: string): boolean {
  const unescaped = text.includes('\\') ? text.replace(CSS_ESCAPE, decodeEscape) : text;
  const folded = unescaped.replace(SPACE_OR_COMMENT, '').toLowerCase();
  return !RESOURCE_FUNCTION.test(folded) && !FORBIDDEN_TEXT.test(folded);
}

function isKeptDeclaration(text: string): boolean {
  return text.indexOf(':') > 0 && text.charCodeAt(0) !== 0x40 && isInertCss(text);
}

function atRuleName(prelude: string): string | undefined {
  if (prelude.charCodeAt(0) !== 0x40) return undefined;
  const match = /^@([-\w]+)/.exec(prelude);
  return match === null ? '' : (match[1] as string).toLowerCase();
}

type BlockMode = 'rules' | 'declarations' | 'inline';

export interface StyleSheetOptions {
  /** Keep @font-face rules whose `src` survives (names no resource, as after stored-css.ts inlined it). */
  fontFaces?: boolean;
}

const FONT_FACE_SOURCE = /(?:^|;)src:/;

class CssScanner {
  readonly #css: string;
  readonly #fontFaces: boolean;
  #at = 0;
  /** The last prelude held a string cut by a newline or the end: CSS drops what holds one. */
  #badString = false;

  constructor(css: string, options: StyleSheetOptions = {}) {
    this.#css = css;
    this.#fontFaces = options.fontFaces === true;
  }

  /**
   * The contents of a block (or of the whole text), rebuilt from what is kept. `nested`:
   * a `}` ends it; at the top a stray `}` is skipped, as CSS error recovery does.
   */
  block(mode: BlockMode, depth: number, nested: boolean): string {
    let out = '';
    const css = this.#css;
    while (this.#at < css.length) {
      const head = this.#readPrelude().trim();
      const bad = this.#badString;
      const end = css.charCodeAt(this.#at);
      this.#at++;
      if (end === OPEN_BRACE) {
        out += this.#nestedBlock(bad ? '' : head, mode, depth);
        continue;
      }
      if (head !== '' && !bad && mode !== 'rules' && isKeptDeclaration(head)) out += `${head};`;
      if (end === CLOSE_BRACE && nested) break;
    }
    return out;
  }

  #nestedBlock(head: string, mode: BlockMode, depth: number): string {
    if (mode === 'inline' || head === '' || depth >= MAX_BLOCK_DEPTH || !isInertCss(head)) {
      this.#skipBlock();
      return '';
    }
    const atRule = atRuleName(head);
    let inner: string;
    if (atRule === undefined) inner = this.block('declarations', depth + 1, true);
    else if (GROUPING_AT_RULES.has(atRule)) inner = this.block('rules', depth + 1, true);
    else if (DECLARATION_AT_RULES.has(atRule)) inner = this.block('declarations', depth + 1, true);
    else if (atRule === 'font-face' && this.#fontFaces) {
      inner = this.block('declarations', depth + 1, true);
      if (!FONT_FACE_SOURCE.test(inner)) return '';
    } else {
      this.#skipBlock();
      return '';
    }
    return inner === '' ? '' : `${head}{${inner}}`;
  }

  /** Up to the next `{`, `;` or `}` outside strings, brackets and comments; a comment reads as a space. */
  #readPrelude(): string {
    const css = this.#css;
    let out = '';
    let from = this.#at;
    let brackets = 0;
    this.#badString = false;
    while (this.#at < css.length) {
      const c = css.charCodeAt(this.#at);
      if (c === 0x22 || c === 0x27) {
        this.#skipString(c);
      } else if (c === SLASH && css.charCodeAt(this.#at + 1) === STAR) {
        out += `${css.slice(from, this.#at)} `;
        const close = css.indexOf('*/', this.#at + 2);
        this.#at = close === -1 ? css.length : close + 2;
        from = this.#at;
      } else if (c === BACKSLASH) {
        this.#at += 2;
      } else {
        if (c === 0x28 || c === 0x5b) brackets++;
        else if ((c === 0x29 || c === 0x5d) && brackets > 0) brackets--;
        else if (brackets === 0 && (c === OPEN_BRACE || c === SEMICOLON || c === CLOSE_BRACE)) break;
        this.#at++;
      }
    }
    if (this.#at > css.length) this.#at = css.length;
    return out + css.slice(from, this.#at);
  }

  #skipString(quote: number): void {
    const css = this.#css;
    this.#at++;
    while (this.#at < css.length) {
      const c = css.charCodeAt(this.#at);
      if (c === BACKSLASH) this.#at += 2;
      else if (c === quote || c === NEWLINE) {
        this.#badString ||= c === NEWLINE;
        this.#at++;
        return;
      } else this.#at++;
    }
    this.#badString = true;
  }

  /** Past the `}` that closes the block just opened, counting braces instead of recursing. */
  #skipBlock(): void {
    const css = this.#css;
    let open = 1;
    while (open > 0 && this.#at < css.length) {
      this.#readPrelude();
      const c = css.charCodeAt(this.#at);
      this.#at++;
      if (c === OPEN_BRACE) open++;
      else if (c === CLOSE_BRACE) open--;
    }
  }
}

/** A style sheet (the text of a <style> element). The result never contains '<', so it cannot end its element. */
export function sanitizeStyleSheet(css: string, options: StyleSheetOptions = {}): string {
  return new CssScanner(css, options).block('rules', 0, false).replaceAll('<', '\\3c ');
}

/** The declarations of a style attribute. */
export function sanitizeStyleDeclarations(text: string): string {
  return new CssScanner(text).block('inline', 0, false);
}
