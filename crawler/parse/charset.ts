/**
 * Turns the bytes of an HTML response into text.
 *
 * Where the encoding comes from, in order:
 *  1. the charset of the HTTP Content-Type header, if TextDecoder knows the label;
 *  2. a byte-order mark;
 *  3. a <meta charset> / <meta http-equiv=content-type> found by a prescan of the
 *     first 1024 bytes (after the idea of the WHATWG "prescan a byte stream");
 *  4. UTF-8 if the bytes are valid UTF-8, else windows-1252.
 *
 * A BOM overrides a header that names a different encoding. The WHATWG standard
 * checks the BOM before the header, and browsers follow it: three specific bytes
 * at offset 0 do not appear by accident, whereas wrong header charsets are common
 * (server-wide defaults).
 *
 * The default of step 4 is what browsers effectively do for unlabelled pages:
 * modern unlabelled pages are UTF-8, and legacy unlabelled ones are Western
 * European, where windows-1252 (which also stands for the iso-8859-1 label)
 * decodes every byte.
 *
 * Labels are resolved by TextDecoder itself; a label it does not know (or maps to
 * the "replacement" encoding, e.g. iso-2022-kr) is ignored and the next source is
 * tried. Decoding never throws: bytes invalid in the chosen encoding become U+FFFD.
 *
 * Mislabelled pages: the label is trusted, as browsers do. A page labelled UTF-8
 * whose bytes are latin1 gets U+FFFD for each lone high byte (the ASCII text
 * survives); a page labelled iso-8859-1 whose bytes are UTF-8 gets mojibake
 * ("café" reads "cafÃ©"). Guessing instead would damage the far more common
 * UTF-8 page that holds a few stray invalid bytes.
 */
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

export type CharsetSource = 'header' | 'bom' | 'meta' | 'default';

export interface DecodedHtml {
  text: string;
  /** The WHATWG name of the encoding used, as TextDecoder reports it (e.g. 'windows-1252'). */
  charset: string;
  source: CharsetSource;
}

const decoders = new Map<string, TextDecoder>();
/** Labels seen before; bounded because labels come from the network. */
const labelToEncoding = new Map<string, string | null>();
const LABEL_CACHE_LIMIT = 512;
const MAX_LABEL_LENGTH = 64;

function decoderFor(encoding: string): TextDecoder {
  let decoder = decoders.get(encoding);
  if (decoder === undefined) {
    decoder = new TextDecoder(encoding, { fatal: false });
    decoders.set(encoding, decoder);
  }
  return decoder;
}

/** The WHATWG encoding name for a label, or null if TextDecoder cannot decode it. */
export function resolveEncodingLabel(label: string): string | null {
  if (label.length === 0 || label.length > MAX_LABEL_LENGTH) return null;
  const cached = labelToEncoding.get(label);
  if (cached !== undefined) return cached;
  let encoding: string | null;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    encoding = null;
  }
  if (labelToEncoding.size >= LABEL_CACHE_LIMIT) labelToEncoding.clear();
  labelToEncoding.set(label, encoding);
  return encoding;
}

/** The encoding a byte-order mark announces, if the bytes start with one. */
export function detectBom(bytes: Uint8Array): string | null {
  const b0 = bytes[0];
  const b1 = bytes[1];
  if (b0 === 0xef && b1 === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (b0 === 0xfe && b1 === 0xff) return 'utf-16be';
  if (b0 === 0xff && b1 === 0xfe) return 'utf-16le';
  return null;
}

const PRESCAN_LIMIT = 1024;

function isSpaceByte(b: number | undefined): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

function isAsciiLetter(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
}

function lowerByte(b: number): number {
  return b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
}

/**
 * A small cursor over the first bytes of the document. Attribute names and
 * values are read as latin1 strings: the prescan only cares about ASCII.
 */
class Prescanner {
  readonly bytes: Uint8Array;
  readonly end: number;
  pos = 0;
  attrName = '';
  attrValue = '';

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.end = Math.min(bytes.length, PRESCAN_LIMIT);
  }

  at(offset = 0): number | undefined {
    const p = this.pos + offset;
    return p < this.end ? this.bytes[p] : undefined;
  }

  matchesLower(ascii: string): boolean {
    for (let i = 0; i < ascii.length; i++) {
      const b = this.at(i);
      if (b === undefined || lowerByte(b) !== ascii.charCodeAt(i)) return false;
    }
    return true;
  }

  skipPast(byte: number): void {
    while (this.pos < this.end && this.bytes[this.pos] !== byte) this.pos++;
    this.pos++;
  }

  skipComment(): void {
    // "<!-->" and "<!--->" close immediately: the dashes of "<!--" count.
    this.pos += 2;
    while (this.pos < this.end) {
      if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos - 1] === 0x2d && this.bytes[this.pos - 2] === 0x2d) {
        this.pos++;
        return;
      }
      this.pos++;
    }
  }

  /** Reads one attribute into attrName/attrValue; false at the end of the tag. */
  readAttribute(): boolean {
    let b = this.at();
    while (isSpaceByte(b) || b === 0x2f) {
      this.pos++;
      b = this.at();
    }
    if (b === undefined || b === 0x3e) return false;
    let name = '';
    for (;;) {
      b = this.at();
      if (b === undefined) return false;
      if (b === 0x3d && name !== '') break;
      if (isSpaceByte(b)) {
        while (isSpaceByte(this.at())) this.pos++;
        if (this.at() !== 0x3d) {
          this.attrName = name;
          this.attrValue = '';
          return true;
        }
        break;
      }
      if (b === 0x2f || b === 0x3e) {
        this.attrName = name;
        this.attrValue = '';
        return true;
      }
      name += String.fromCharCode(lowerByte(b));
      this.pos++;
    }
    this.pos++; // '='
    while (isSpaceByte(this.at())) this.pos++;
    b = this.at();
    let value = '';
    if (b === 0x22 || b === 0x27) {
      const quote = b;
      this.pos++;
      for (;;) {
        b = this.at();
        if (b === undefined) return false;
        this.pos++;
        if (b === quote) break;
        value += String.fromCharCode(lowerByte(b));
      }
    } else {
      if (b === 0x3e) {
        this.attrName = name;
        this.attrValue = '';
        return true;
      }
      for (;;) {
        b = this.at();
        if (b === undefined) return false;
        if (isSpaceByte(b) || b === 0x3e) break;
        value += String.fromCharCode(lowerByte(b));
        this.pos++;
      }
    }
    this.attrName = name;
    this.attrValue = value;
    return true;
  }

  /** Handles the attributes of a <meta>; returns an encoding or null. */
  readMeta(): string | null {
    const seen = new Set<string>();
    let gotPragma = false;
    let needPragma: boolean | null = null;
    let charset: string | null = null;
    while (this.readAttribute()) {
      const name = this.attrName;
      if (seen.has(name)) continue;
      seen.add(name);
      if (name === 'http-equiv') {
        if (this.attrValue === 'content-type') gotPragma = true;
      } else if (name === 'content') {
        if (charset === null) {
          const label = charsetFromMetaContent(this.attrValue);
          if (label !== null) {
            charset = resolveEncodingLabel(label);
            needPragma = true;
          }
        }
      } else if (name === 'charset') {
        charset = resolveEncodingLabel(this.attrValue.trim());
        needPragma = false;
      }
    }
    if (needPragma === null || (needPragma && !gotPragma) || charset === null) return null;
    // A UTF-16 label cannot be right: the prescan just read this tag as ASCII.
    if (charset === 'utf-16le' || charset === 'utf-16be') return 'utf-8';
    if (charset === 'x-user-defined') return 'windows-1252';
    return charset;
  }

  /** Skips a start or end tag, attribute by attribute so that '>' inside quotes is not its end. */
  skipTag(): void {
    for (;;) {
      const b = this.at();
      if (b === undefined || isSpaceByte(b) || b === 0x3e) break;
      this.pos++;
    }
    while (this.readAttribute()) {
      // Attributes of other tags are irrelevant; reading them keeps us in sync.
    }
    this.pos++;
  }
}

/**
 * Extracts the label from a meta content value such as "text/html; charset=utf-8"
 * (the WHATWG "extracting a character encoding from a meta element").
 */
export function charsetFromMetaContent(content: string): string | null {
  const lower = content.toLowerCase();
  let from = 0;
  for (;;) {
    const idx = lower.indexOf('charset', from);
    if (idx === -1) return null;
    let i = idx + 7;
    while (i < lower.length && isSpaceByte(lower.charCodeAt(i))) i++;
    if (lower.charCodeAt(i) !== 0x3d) {
      from = idx + 7;
      continue;
    }
    i++;
    while (i < lower.length && isSpaceByte(lower.charCodeAt(i))) i++;
    const first = lower.charCodeAt(i);
    if (first === 0x22 || first === 0x27) {
      const close = lower.indexOf(lower[i] as string, i + 1);
      return close === -1 ? null : content.slice(i + 1, close).trim();
    }
    let j = i;
    while (j < lower.length && !isSpaceByte(lower.charCodeAt(j)) && lower.charCodeAt(j) !== 0x3b) j++;
    return j === i ? null : content.slice(i, j);
  }
}

/** The encoding declared by a <meta> in the first 1024 bytes, or null. */
export function prescanMetaCharset(bytes: Uint8Array): string | null {
  const s = new Prescanner(bytes);
  while (s.pos < s.end) {
    if (s.at() !== 0x3c) {
      s.pos++;
      continue;
    }
    if (s.matchesLower('<!--')) {
      s.skipComment();
    } else if (s.matchesLower('<meta') && (isSpaceByte(s.at(5)) || s.at(5) === 0x2f)) {
      s.pos += 5;
      const found = s.readMeta();
      if (found !== null) return found;
    } else if (isAsciiLetter(s.at(1)) || (s.at(1) === 0x2f && isAsciiLetter(s.at(2)))) {
      s.pos += s.at(1) === 0x2f ? 2 : 1;
      s.skipTag();
    } else if (s.at(1) === 0x21 || s.at(1) === 0x2f || s.at(1) === 0x3f) {
      s.skipPast(0x3e);
    } else {
      s.pos++;
    }
  }
  return null;
}

function decodeWith(bytes: Uint8Array, charset: string, source: CharsetSource): DecodedHtml {
  return { text: decoderFor(charset).decode(bytes), charset, source };
}

export function decodeHtml(bytes: Uint8Array, headerCharset?: string): DecodedHtml {
  const bom = detectBom(bytes);
  const fromHeader = headerCharset === undefined ? null : resolveEncodingLabel(headerCharset.trim());
  if (fromHeader !== null && (bom === null || bom === fromHeader)) return decodeWith(bytes, fromHeader, 'header');
  if (bom !== null) return decodeWith(bytes, bom, 'bom');
  const fromMeta = prescanMetaCharset(bytes);
  if (fromMeta !== null) return decodeWith(bytes, fromMeta, 'meta');
  return decodeWith(bytes, isUtf8(bytes) ? 'utf-8' : 'windows-1252', 'default');
}
