/**
 * File names for an offline mirror: each page's URL becomes a relative path that reads like
 * the URL and is safe on Linux, macOS and Windows.
 *
 *   http://127.0.0.1:8080/db/wal-0        → 127.0.0.1_8080/db/wal-0.html
 *   https://example.org/docs/             → example.org/docs/index.html
 *   https://example.org/search?q=wal      → example.org/search_q=wal~1a2b3c4d.html
 *   https://example.org/papers/wal (PDF)  → example.org/papers/wal.pdf
 *
 * Rules:
 * - `<host>[_<port>]/<path segments>`; a directory URL ends in index.html; a file keeps the
 *   extension of its kind (.html/.htm for a page, .pdf for a PDF, .txt for plain text) and
 *   gets it otherwise, so a browser opens it as what it is. Scheme is dropped (http and
 *   https of one path collide, and collisions are resolved below).
 * - Segments are percent-decoded, NFC-normalised, and every character but letters, digits,
 *   marks and `-_.~+,=@()!$` becomes `_` (so no `/\:*?"<>|`, no control characters, no
 *   spaces). A leading dot becomes `_` (no hidden files, no `.`/`..`), trailing dots become
 *   `_`, and a Windows device name (CON, NUL, COM1, ... with or without extension) gets a
 *   leading `_`.
 * - A directory segment never ends in .html/.htm/.pdf/.txt (a `_` is added): files always
 *   do, so a file and a directory can never want the same name.
 * - A query string is folded into the file name: its first characters for the reader, and
 *   a short hash of all of it so that different queries get different names.
 * - A segment is cut to MAX_SEGMENT_BYTES of UTF-8 (file systems count bytes), ending in a
 *   hash of what was cut. When the whole path passes MAX_PATH_CHARS (Windows' 260-character
 *   limit must leave room for the folder the mirror is unpacked into), the deepest
 *   directories are folded into a hash in the file name.
 * - Duplicates, including names equal but for letter case (macOS and Windows file systems
 *   ignore case), are resolved by MirrorNames in the order pages are assigned: the first
 *   keeps the plain name, later ones get `~<hash of their URL>` before the extension.
 */
import { createHash } from 'node:crypto';
import type { DocumentType } from '../../parse/documents/document-facts.ts';

export const MAX_SEGMENT_BYTES = 80;
export const MAX_PATH_CHARS = 200;
const MAX_QUERY_CHARS = 40;
const HASH_CHARS = 8;

const UNSAFE = /[^\p{L}\p{N}\p{M}\-_.~+,=@()!$]+/gu;

/** What a mirror file holds: a page, or a document as received. */
export type MirrorFileKind = 'html' | DocumentType;

/** The extension each kind gets, and the ones it keeps when its URL has them already. */
const EXTENSIONS: Record<MirrorFileKind, { given: string; kept: RegExp }> = {
  html: { given: '.html', kept: /\.html?$/i },
  pdf: { given: '.pdf', kept: /\.pdf$/i },
  text: { given: '.txt', kept: /\.txt$/i },
};
const FILE_EXTENSION = /\.(html?|pdf|txt)$/i;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_CHARS);
}

function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Cuts `name` to `maxBytes` of UTF-8, whole code points, marking the cut with a hash of the whole. */
function capBytes(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const suffix = `~${shortHash(name)}`;
  let kept = '';
  let bytes = 0;
  for (const ch of name) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes - suffix.length) break;
    kept += ch;
    bytes += size;
  }
  return kept + suffix;
}

/** One path segment, safe on every common file system and at most `maxBytes` long. */
function safeName(raw: string, maxBytes: number): string {
  let name = raw.normalize('NFC').replace(UNSAFE, '_');
  name = name.replace(/^\./, '_').replace(/\.+$/, (dots) => '_'.repeat(dots.length));
  if (name === '') name = '_';
  if (WINDOWS_DEVICE.test(name.split('.')[0] as string)) name = `_${name}`;
  return capBytes(name, maxBytes);
}

function directoryName(raw: string): string {
  const name = safeName(raw, MAX_SEGMENT_BYTES - 1);
  return FILE_EXTENSION.test(name) ? `${name}_` : name;
}

function fileName(lastSegment: string, query: string, kind: MirrorFileKind): string {
  const { given, kept } = EXTENSIONS[kind];
  const decoded = lastSegment === '' ? 'index' : decodeComponent(lastSegment);
  const extension = kept.exec(decoded);
  const stem = extension === null ? decoded : decoded.slice(0, extension.index);
  if (query === '') {
    const ext = extension?.[0] ?? given;
    return safeName(stem, MAX_SEGMENT_BYTES - ext.length) + ext;
  }
  const hash = `~${shortHash(query)}`;
  const readable = [...decodeComponent(query)].slice(0, MAX_QUERY_CHARS).join('');
  return `${safeName(`${stem}_${readable}`, MAX_SEGMENT_BYTES - hash.length - given.length)}${hash}${given}`;
}

/** `name` with `suffix` put before its extension (every file name here has one). */
export function withSuffix(path: string, suffix: string): string {
  const dot = path.lastIndexOf('.');
  return `${path.slice(0, dot)}${suffix}${path.slice(dot)}`;
}

/** The path a page's (or a document's) URL asks for, before duplicates are resolved. */
export function mirrorPath(url: string, kind: MirrorFileKind = 'html'): string {
  const parsed = new URL(url);
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  const host = directoryName(parsed.port === '' ? hostname : `${hostname}_${parsed.port}`);
  const segments = parsed.pathname.split('/').slice(1);
  const file = fileName(segments.pop() ?? '', parsed.search.slice(1), kind);
  const dirs = segments.map((segment) => directoryName(decodeComponent(segment)));
  const length = (): number => host.length + dirs.reduce((sum, dir) => sum + dir.length + 1, 0) + 1 + file.length;
  if (length() <= MAX_PATH_CHARS) return [host, ...dirs, file].join('/');
  while (dirs.length > 0 && length() > MAX_PATH_CHARS - HASH_CHARS - 1) dirs.pop();
  return [host, ...dirs, withSuffix(file, `~${shortHash(parsed.pathname + parsed.search)}`)].join('/');
}

/** How a case-insensitive file system sees a path. */
function collisionKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/**
 * Assigns each page of a mirror its own path. Deterministic: the same URLs in the same order
 * get the same paths. Memory: one short key per page.
 */
export class MirrorNames {
  readonly #taken = new Set<string>([collisionKey('index.html')]);

  assign(url: string, kind: MirrorFileKind = 'html'): string {
    const wanted = mirrorPath(url, kind);
    let path = wanted;
    for (let n = 1; this.#taken.has(collisionKey(path)); n++) {
      path = withSuffix(wanted, n === 1 ? `~${shortHash(url)}` : `~${shortHash(url)}-${n}`);
    }
    this.#taken.add(collisionKey(path));
    return path;
  }
}

/** A relative href from the file at `fromPath` to the file at `toPath` (both mirror paths). */
export function relativeHref(fromPath: string, toPath: string): string {
  const from = fromPath.split('/');
  from.pop();
  const to = toPath.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  const up = new Array<string>(from.length - common).fill('..');
  return [...up, ...to.slice(common).map(encodeURIComponent)].join('/');
}
