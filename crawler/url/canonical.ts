/**
 * Canonical URLs: the one spelling of a URL that Forager fetches, stores and fingerprints
 * for the seen test.
 *
 * Parsing and resolution are WHATWG (Node's URL), i.e. what a browser would request. On
 * top of that the canonical form:
 * - accepts only http and https, with a host that DNS could resolve (IPv4, [IPv6], or a
 *   name of labels [a-z0-9_-], 1-63 characters each, 253 in all; xn-- labels must be
 *   valid punycode) and a port other than 0;
 * - lowercases scheme and host, maps IDN to punycode, drops the default port (WHATWG);
 * - drops one trailing dot of the host (example.org. and example.org are one site);
 * - drops userinfo: fetch() refuses URLs with credentials, and secrets do not belong in
 *   the collection;
 * - drops the fragment and a bare '?' (an empty query). crawler-commons and Heritrix's
 *   seen-key rules drop the bare '?' too; WHATWG keeps it, but WHATWG describes parsing,
 *   not equivalence;
 * - resolves dot segments, and an empty path becomes '/' (WHATWG);
 * - in path and query, decodes percent-escapes of unreserved characters (ALPHA DIGIT
 *   - . _ ~) and uppercases the hex digits of the other escapes (RFC 3986 §6.2.2). A '%'
 *   not followed by two hex digits is left alone, as browsers send it.
 * It keeps the query's parameter order and never adds escapes that WHATWG does not
 * (e.g. '|' or '[' in a query stay raw): sorting and re-escaping change meaning on some
 * sites. Session-id stripping is an option, off by default.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { InvalidUrlError } from '../errors.ts';

export const MAX_URL_LENGTH = 2048;

export type CanonicalizeFailure =
  | 'too-long'
  | 'unparseable'
  | 'unsupported-scheme'
  | 'empty-host'
  | 'invalid-host'
  | 'invalid-port';

export interface CanonicalizeOptions {
  /** Longest accepted URL, both as given and once resolved. Default MAX_URL_LENGTH. */
  maxLength?: number;
  /** Remove session-id query and path parameters (see isSessionIdParam). Default false. */
  stripSessionIds?: boolean;
}

export type CanonicalizeResult = { ok: true; url: string } | { ok: false; reason: CanonicalizeFailure };

/** Throws InvalidUrlError (code INVALID_URL, context.reason one of CanonicalizeFailure). */
export function canonicalize(raw: string, base?: string | URL, options?: CanonicalizeOptions): string {
  const url = canonicalOrNull(raw, base, options);
  if (url === null) throw failureError(raw, base, options?.maxLength ?? MAX_URL_LENGTH);
  return url;
}

/** canonicalize without exceptions, for hot paths such as link extraction. */
export function tryCanonicalize(raw: string, base?: string | URL, options?: CanonicalizeOptions): CanonicalizeResult {
  const url = canonicalOrNull(raw, base, options);
  return url === null ? { ok: false, reason: failure } : { ok: true, url };
}

// The failing step reports here, so the hot path allocates no error objects.
let failure: CanonicalizeFailure = 'unparseable';
let failureDetail = '';

function fail(reason: CanonicalizeFailure, detail: string): null {
  failure = reason;
  failureDetail = detail;
  return null;
}

function canonicalOrNull(raw: string, base: string | URL | undefined, options: CanonicalizeOptions | undefined): string | null {
  const maxLength = options?.maxLength ?? MAX_URL_LENGTH;
  if (raw.length > maxLength) return fail('too-long', String(raw.length));
  // An absolute http(s) URL ignores its base: skip parsing the base for it.
  const u = base === undefined || startsWithHttpScheme(raw) ? URL.parse(raw) : URL.parse(raw, typeof base === 'string' ? base : base.href);
  if (u === null) return diagnoseParseFailure(raw);
  const protocol = u.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') return fail('unsupported-scheme', protocol.slice(0, -1));
  let host = u.hostname;
  if (host.charCodeAt(host.length - 1) === DOT) host = host.slice(0, -1);
  if (host === '') return fail('empty-host', '');
  if (host.charCodeAt(0) !== OPEN_BRACKET && !isDnsHostname(host)) return fail('invalid-host', host);
  const port = u.port;
  if (port === '0') return fail('invalid-port', port);
  let rest = u.pathname + u.search;
  if (rest.indexOf('%') !== -1) rest = normalizePercentEscapes(rest);
  if (options?.stripSessionIds === true) rest = removeSessionIds(rest);
  const url = port === '' ? `${protocol}//${host}${rest}` : `${protocol}//${host}:${port}${rest}`;
  if (url.length > maxLength) return fail('too-long', String(url.length));
  return url;
}

function failureError(raw: string, base: string | URL | undefined, maxLength: number): InvalidUrlError {
  const shown = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  const context: Record<string, unknown> = { reason: failure, url: shown };
  if (base !== undefined) context.base = String(base);
  const against = base === undefined ? '' : ` against base "${String(base)}"`;
  switch (failure) {
    case 'too-long':
      context.length = Number(failureDetail);
      context.maxLength = maxLength;
      return new InvalidUrlError(`URL is ${failureDetail} characters long, over the limit of ${maxLength}`, context);
    case 'unsupported-scheme':
      context.scheme = failureDetail;
      return new InvalidUrlError(`URL scheme "${failureDetail}:" is not crawlable (only http and https are): "${shown}"`, context);
    case 'empty-host':
      return new InvalidUrlError(`URL has an empty host: "${shown}"${against}`, context);
    case 'invalid-host':
      context.host = failureDetail;
      return new InvalidUrlError(`URL host "${failureDetail}" is not a valid DNS hostname: "${shown}"`, context);
    case 'invalid-port':
      return new InvalidUrlError(`URL port 0 cannot be connected to: "${shown}"`, context);
    case 'unparseable':
      return new InvalidUrlError(`Cannot parse URL "${shown}"${against}`, context);
  }
}

const DOT = 0x2e;
const OPEN_BRACKET = 0x5b;
const PERCENT = 0x25;

function startsWithHttpScheme(s: string): boolean {
  // 'http' case-insensitively, an optional 's', then '://'.
  if (s.length < 7 || (s.charCodeAt(0) | 0x20) !== 0x68 || (s.charCodeAt(1) | 0x20) !== 0x74 ||
    (s.charCodeAt(2) | 0x20) !== 0x74 || (s.charCodeAt(3) | 0x20) !== 0x70) return false;
  const i = (s.charCodeAt(4) | 0x20) === 0x73 ? 5 : 4;
  return s.charCodeAt(i) === 0x3a && s.charCodeAt(i + 1) === 0x2f && s.charCodeAt(i + 2) === 0x2f;
}

// Runs only after a parse failure, to say why: a scheme we never crawl, "http://", or garbage.
function diagnoseParseFailure(raw: string): null {
  const scheme = /^[\s\x00-\x1f]*([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') return fail('unsupported-scheme', scheme);
  if (scheme !== undefined && /^[\s\x00-\x1f]*https?:[\\/\s]*(?:[?#].*)?$/i.test(raw)) return fail('empty-host', '');
  return fail('unparseable', '');
}

/** Lowercase ASCII hostname (as WHATWG serialises it), without a trailing dot. */
function isDnsHostname(host: string): boolean {
  if (host.length > 253) return false;
  let labelStart = 0;
  for (let i = 0; i <= host.length; i++) {
    const c = i === host.length ? DOT : host.charCodeAt(i);
    if (c === DOT) {
      const len = i - labelStart;
      if (len === 0 || len > 63) return false;
      if (len >= 4 && host.startsWith('xn--', labelStart) && !isPunycodeLabel(host.slice(labelStart, i))) return false;
      labelStart = i + 1;
    } else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f)) {
      return false;
    }
  }
  return true;
}

// Node decodes an invalid xn-- label to itself; a valid one must round-trip.
function isPunycodeLabel(label: string): boolean {
  const unicode = domainToUnicode(label);
  return unicode !== label && unicode !== '' && domainToASCII(unicode) === label;
}

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX_VALUE[0x30 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX_VALUE[0x41 + c] = 10 + c;
  HEX_VALUE[0x61 + c] = 10 + c;
}
const HEX_UPPER = '0123456789ABCDEF';

function hexValue(c: number): number {
  return c < 128 ? (HEX_VALUE[c] as number) : -1;
}

function isUnreserved(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) ||
    c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

/** Decodes escapes of unreserved characters and uppercases the hex of the others. */
function normalizePercentEscapes(s: string): string {
  let out = '';
  let copiedTo = 0;
  for (let i = s.indexOf('%'); i !== -1 && i + 2 < s.length; i = s.indexOf('%', i + 1)) {
    const hi = hexValue(s.charCodeAt(i + 1));
    const lo = hexValue(s.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) continue;
    const byte = (hi << 4) | lo;
    let replacement: string;
    if (isUnreserved(byte)) {
      replacement = String.fromCharCode(byte);
    } else {
      replacement = `%${HEX_UPPER[hi]}${HEX_UPPER[lo]}`;
      if (replacement === s.slice(i, i + 3)) continue;
    }
    out += s.slice(copiedTo, i) + replacement;
    copiedTo = i + 3;
    i += 2;
  }
  return copiedTo === 0 ? s : out + s.slice(copiedTo);
}

const SESSION_ID_NAMES = new Set(['jsessionid', 'phpsessid', 'sessionid', 'session_id', 'sessid', 'sid']);

/**
 * A session-id parameter: a known session name (or ASP's aspsessionidXXXX) whose value is
 * opaque, i.e. at least 10 characters of [A-Za-z0-9 -._~:+=%] holding both letters and
 * digits. The value test keeps e.g. a numeric "sid=12" section id.
 */
export function isSessionIdParam(name: string, value: string): boolean {
  if (value.length < 10) return false;
  const lower = name.toLowerCase();
  if (!SESSION_ID_NAMES.has(lower) && !lower.startsWith('aspsessionid')) return false;
  let letters = false;
  let digits = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits = true;
    else if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) letters = true;
    else if (c !== 0x2d && c !== 0x2e && c !== 0x5f && c !== 0x7e && c !== 0x3a && c !== 0x2b && c !== 0x3d && c !== PERCENT) return false;
  }
  return letters && digits;
}

/** Strips session-id query parameters and ;name=value path parameters from path+query. */
function removeSessionIds(rest: string): string {
  const q = rest.indexOf('?');
  const path = q === -1 ? rest : rest.slice(0, q);
  const query = q === -1 ? '' : rest.slice(q + 1);
  const newPath = path.indexOf(';') === -1 ? path : path.split('/').map(removeSessionPathParams).join('/');
  let newQuery = query;
  if (query.indexOf('=') !== -1) {
    newQuery = query.split('&').filter((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 || !isSessionIdParam(pair.slice(0, eq), pair.slice(eq + 1));
    }).join('&');
  }
  return newQuery === '' ? newPath : `${newPath}?${newQuery}`;
}

function removeSessionPathParams(segment: string): string {
  const parts = segment.split(';');
  if (parts.length === 1) return segment;
  const kept = [parts[0] as string];
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i] as string;
    const eq = p.indexOf('=');
    if (eq === -1 || !isSessionIdParam(p.slice(0, eq), p.slice(eq + 1))) kept.push(p);
  }
  return kept.join(';');
}
