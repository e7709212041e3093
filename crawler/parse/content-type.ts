/**
 * Content-Type parsing and a cheap check for responses whose bytes contradict
 * their declared type. Never throws: junk headers yield an empty mime.
 */

export interface ContentType {
  /** Lowercased `type/subtype`, or '' when the header is absent or unusable. */
  mime: string;
  /** The charset parameter as sent (unquoted, trimmed), if any. */
  charset?: string;
}

const TOKEN_CHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  TOKEN_CHAR[c.charCodeAt(0)] = 1;
}

function isMimeEssence(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash <= 0 || slash === s.length - 1) return false;
  for (let i = 0; i < s.length; i++) {
    if (i === slash) continue;
    const c = s.charCodeAt(i);
    if (c >= 128 || TOKEN_CHAR[c] !== 1) return false;
  }
  return true;
}

function isHttpSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Splits on commas that are not inside a quoted string: a server that sends
 * Content-Type twice reaches us as the two values joined by ", ".
 */
function splitHeaderValues(header: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (quoted) {
      if (c === 0x5c) i++;
      else if (c === 0x22) quoted = false;
    } else if (c === 0x22) {
      quoted = true;
    } else if (c === 0x2c) {
      out.push(header.slice(start, i));
      start = i + 1;
    }
  }
  out.push(header.slice(start));
  return out;
}

/** Reads the charset parameter from the text after the essence (starting at a ';'). */
function readCharsetParam(params: string): string | undefined {
  let i = 0;
  const n = params.length;
  while (i < n) {
    // Skip to the next parameter.
    while (i < n && (params.charCodeAt(i) === 0x3b || isHttpSpace(params.charCodeAt(i)))) i++;
    const nameStart = i;
    while (i < n && params.charCodeAt(i) !== 0x3d && params.charCodeAt(i) !== 0x3b) i++;
    const name = params.slice(nameStart, i).trim().toLowerCase();
    if (i >= n || params.charCodeAt(i) === 0x3b) continue;
    i++; // '='
    let value: string;
    if (params.charCodeAt(i) === 0x22) {
      i++;
      let v = '';
      while (i < n) {
        const c = params.charCodeAt(i);
        if (c === 0x22) break;
        if (c === 0x5c && i + 1 < n) i++;
        v += params[i];
        i++;
      }
      value = v;
      while (i < n && params.charCodeAt(i) !== 0x3b) i++;
    } else {
      const valueStart = i;
      while (i < n && params.charCodeAt(i) !== 0x3b) i++;
      value = params.slice(valueStart, i).trim();
    }
    if (name === 'charset') {
      const trimmed = value.trim();
      return trimmed === '' ? undefined : trimmed;
    }
  }
  return undefined;
}

/**
 * Parses a Content-Type header value. Follows the idea of the Fetch standard's
 * "extract a MIME type": with several comma-joined values the last valid one
 * wins, and it keeps an earlier charset only if the essence did not change.
 */
export function parseContentType(header: string | undefined): ContentType {
  if (header === undefined || header === '') return { mime: '' };
  let mime = '';
  let charset: string | undefined;
  const values = header.indexOf(',') === -1 ? [header] : splitHeaderValues(header);
  for (const value of values) {
    const semi = value.indexOf(';');
    const essence = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
    if (!isMimeEssence(essence) || essence === '*/*') continue;
    const ownCharset = semi === -1 ? undefined : readCharsetParam(value.slice(semi));
    if (essence !== mime) {
      mime = essence;
      charset = ownCharset;
    } else if (ownCharset !== undefined) {
      charset = ownCharset;
    }
  }
  return charset === undefined ? { mime } : { mime, charset };
}

/** Only real HTML goes to the HTML extractor; XML, feeds and text/plain do not. */
export function isParseableHtml(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/**
 * Types that say only "some bytes" (or no type at all): what such a body is must be read from
 * the body itself. Servers send PDFs so, and download links force it.
 */
const UNLABELLED_BINARY_MIMES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary', 'application/unknown', 'application/download', 'application/x-download', 'application/force-download']);

export function isUnlabelledBinary(mime: string): boolean {
  return UNLABELLED_BINARY_MIMES.has(mime);
}

/** Leading bytes of formats that servers commonly mislabel as text/html. */
const MAGIC_NUMBERS: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], // PNG
  [0x47, 0x49, 0x46, 0x38, 0x37, 0x61], // GIF87a
  [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], // GIF89a
  [0xff, 0xd8, 0xff], // JPEG
  [0x50, 0x4b, 0x03, 0x04], // ZIP (also docx, xlsx, jar, epub)
  [0x50, 0x4b, 0x05, 0x06], // empty ZIP
  [0x25, 0x50, 0x44, 0x46, 0x2d], // %PDF-
  [0x1f, 0x8b, 0x08], // gzip (a body compressed twice, or a .gz file)
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], // xz
  [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], // 7z
  [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], // RAR
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a, 0x90, 0x00], // Windows executable
  [0x00, 0x61, 0x73, 0x6d], // WebAssembly
  [0x4f, 0x67, 0x67, 0x53], // Ogg
  [0x49, 0x44, 0x33], // MP3 with ID3 tag
  [0x77, 0x4f, 0x46, 0x46], // WOFF
  [0x77, 0x4f, 0x46, 0x32], // WOFF2
  [0x25, 0x21, 0x50, 0x53], // PostScript
];

function startsWithBytes(bytes: Uint8Array, magic: readonly number[], at: number): boolean {
  if (bytes.length < at + magic.length) return false;
  for (let i = 0; i < magic.length; i++) {
    if (bytes[at + i] !== magic[i]) return false;
  }
  return true;
}

const RIFF = [0x52, 0x49, 0x46, 0x46];
const FTYP = [0x66, 0x74, 0x79, 0x70];
const SNIFF_WINDOW = 1024;
/**
 * Control bytes other than NUL that plain text almost never contains (the
 * WHATWG "binary data byte" set). Legacy pages do carry a stray one now and
 * then, so only a handful of them in the window counts as binary.
 */
const CONTROL_BYTES_FOR_BINARY = 8;

function isBinaryControlByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

/**
 * True when the body is evidently not text: a known binary magic number, or in
 * the first 1 KiB a NUL byte or several other control bytes. UTF-16 text is
 * full of NULs, so a UTF-16 byte-order mark exempts the body from the byte
 * check (UTF-16 without a BOM is reported as binary; it does not occur in
 * practice for HTML served to crawlers).
 */
export function sniffLooksBinary(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (const magic of MAGIC_NUMBERS) {
    if (startsWithBytes(bytes, magic, 0)) return true;
  }
  if (startsWithBytes(bytes, RIFF, 0) && bytes.length >= 12) return true; // WebP, WAV, AVI
  if (startsWithBytes(bytes, FTYP, 4)) return true; // MP4, MOV, HEIC, AVIF

  const b0 = bytes[0];
  const b1 = bytes[1];
  if ((b0 === 0xfe && b1 === 0xff) || (b0 === 0xff && b1 === 0xfe)) return false;

  const end = Math.min(bytes.length, SNIFF_WINDOW);
  let controls = 0;
  for (let i = 0; i < end; i++) {
    const b = bytes[i] as number;
    if (b === 0) return true;
    if (b < 0x20 && isBinaryControlByte(b) && ++controls >= CONTROL_BYTES_FOR_BINARY) return true;
  }
  return false;
}
