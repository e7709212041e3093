/**
 * Tolerant robots.txt parser (RFC 9309). It works on octets, not text, so that invalid
 * UTF-8 never throws, a (partial) byte-order mark is recognised, and rule paths keep
 * their exact octets when they are percent-encoded for comparison.
 */

/** RFC 9309 §2.5 requires a parsing limit of at least 500 KiB; octets past this are ignored. */
export const ROBOTS_MAX_BYTES = 512 * 1024;

export type RobotsDirective = 'allow' | 'disallow';

export interface RobotsRule {
  readonly directive: RobotsDirective;
  /** The path pattern in the percent-encoded form used for comparison (never empty). */
  readonly pattern: string;
  /** The value as written in the file, for diagnostics. */
  readonly value: string;
  /** 1-based line number in the file. */
  readonly line: number;
}

export interface RobotsGroup {
  /** Lower-case product tokens named by the group's user-agent lines; '*' for the fallback group. */
  readonly agents: readonly string[];
  readonly rules: readonly RobotsRule[];
  /** Crawl-delay in seconds; the largest one when the group states several. */
  readonly crawlDelaySeconds: number | undefined;
  /** Line of the group's first user-agent line. */
  readonly line: number;
}

export interface RobotsFile {
  /** Groups in file order, not merged: matching merges every group that names the agent. */
  readonly groups: readonly RobotsGroup[];
  /** Absolute http(s) sitemap URLs, deduplicated, in file order. */
  readonly sitemaps: readonly string[];
  /** True when the body exceeded ROBOTS_MAX_BYTES and its tail was ignored. */
  readonly truncated: boolean;
}

interface GroupBuilder {
  agents: string[];
  rules: RobotsRule[];
  crawlDelaySeconds: number | undefined;
  line: number;
}

const LF = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
const COLON = 0x3a;
const PERCENT = 0x25;
const STAR = 0x2a;
const LONGEST_KEY = 'crawl-delay'.length;
const BOM = [0xef, 0xbb, 0xbf] as const;

const textDecoder = new TextDecoder('utf-8');
const textEncoder = new TextEncoder();

// Octets that are never valid unencoded in a URI: they are compared in %XX form.
const MUST_ENCODE = new Uint8Array(256);
for (let b = 0; b <= 0x20; b++) MUST_ENCODE[b] = 1;
for (let b = 0x7f; b <= 0xff; b++) MUST_ENCODE[b] = 1;
for (const c of '"<>\\^`{|}') MUST_ENCODE[c.charCodeAt(0)] = 1;

const HEX_DIGITS = '0123456789ABCDEF';

export function parseRobots(body: string | Uint8Array): RobotsFile {
  const bytes = typeof body === 'string' ? encodeCapped(body) : body;
  const truncated = bytes.length > ROBOTS_MAX_BYTES;
  const end = truncated ? endOfLastWholeLine(bytes) : bytes.length;

  const groups: GroupBuilder[] = [];
  const sitemaps = new Set<string>();
  let current: GroupBuilder | undefined;
  // The current group's agents as a set: a file of 29,000 user-agent lines must not cost 29,000² comparisons.
  let currentAgents = new Set<string>();
  // RFC 9309 §2.1: consecutive user-agent lines share a group until a rule appears;
  // other records (sitemap, unknown keys) in between do not split it.
  let collectingAgents = false;

  let lineNumber = 0;
  let pos = skipByteOrderMark(bytes, end);
  while (pos < end) {
    let eol = pos;
    while (eol < end && bytes[eol] !== LF && bytes[eol] !== CR) eol++;
    lineNumber++;
    const kv = splitKeyValue(bytes, pos, eol);
    pos = eol < end && bytes[eol] === CR && eol + 1 < end && bytes[eol + 1] === LF ? eol + 2 : eol + 1;
    if (kv === undefined) continue;
    const { key, valueStart, valueEnd } = kv;

    switch (key) {
      case 'user-agent': {
        if (current === undefined || !collectingAgents) {
          current = { agents: [], rules: [], crawlDelaySeconds: undefined, line: lineNumber };
          groups.push(current);
          currentAgents = new Set();
          collectingAgents = true;
        }
        const token = agentToken(bytes, valueStart, valueEnd);
        if (token !== '' && !currentAgents.has(token)) {
          currentAgents.add(token);
          current.agents.push(token);
        }
        break;
      }
      case 'allow':
      case 'disallow': {
        // Rules before the first user-agent line belong to no group (RFC 9309 §2.2.2).
        if (current === undefined) break;
        collectingAgents = false;
        // An empty value matches nothing: "Disallow:" disallows nothing.
        if (valueStart === valueEnd) break;
        current.rules.push({
          directive: key,
          pattern: encodePattern(bytes, valueStart, valueEnd),
          value: textDecoder.decode(bytes.subarray(valueStart, valueEnd)),
          line: lineNumber,
        });
        break;
      }
      case 'crawl-delay': {
        if (current === undefined) break;
        // A group member like a rule: "User-agent: *\nCrawl-delay: 5\n\nUser-agent: X\nDisallow: /"
        // must not fold X into the * group and so disallow everything for everyone.
        collectingAgents = false;
        const seconds = parseCrawlDelay(asciiString(bytes, valueStart, valueEnd));
        if (seconds !== undefined && (current.crawlDelaySeconds === undefined || seconds > current.crawlDelaySeconds)) {
          current.crawlDelaySeconds = seconds;
        }
        break;
      }
      case 'sitemap': {
        const url = absoluteHttpUrl(textDecoder.decode(bytes.subarray(valueStart, valueEnd)));
        if (url !== undefined) sitemaps.add(url);
        break;
      }
    }
  }

  return { groups, sitemaps: [...sitemaps], truncated };
}

function encodeCapped(body: string): Uint8Array {
  // Every UTF-16 unit encodes to at least one octet, so this keeps enough to fill the cap
  // and one octet more, which tells whether the cap cut a line.
  return textEncoder.encode(body.length > ROBOTS_MAX_BYTES ? body.slice(0, ROBOTS_MAX_BYTES + 1) : body);
}

/** The parse end for an over-long body: the cap, pulled back so that no cut line is read. */
function endOfLastWholeLine(bytes: Uint8Array): number {
  const next = bytes[ROBOTS_MAX_BYTES];
  if (next === LF || next === CR) return ROBOTS_MAX_BYTES;
  for (let i = ROBOTS_MAX_BYTES - 1; i >= 0; i--) {
    if (bytes[i] === LF || bytes[i] === CR) return i + 1;
  }
  return 0;
}

/** Skips a UTF-8 byte-order mark, or as much of one as is present (truncated BOMs occur). */
function skipByteOrderMark(bytes: Uint8Array, end: number): number {
  let i = 0;
  while (i < BOM.length && i < end && bytes[i] === BOM[i]) i++;
  return i;
}

function isBlank(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0b || b === 0x0c;
}

interface KeyValue {
  readonly key: string;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/**
 * `key : value`, comment removed and whitespace trimmed. The key is lower-cased and
 * returned only when it is short enough to be one we know. A missing colon is tolerated
 * when the line is exactly two words ("disallow /x"), a common mistake.
 */
function splitKeyValue(bytes: Uint8Array, start: number, end: number): KeyValue | undefined {
  let lineEnd = start;
  while (lineEnd < end && bytes[lineEnd] !== HASH) lineEnd++;
  while (start < lineEnd && isBlank(bytes[start])) start++;
  while (lineEnd > start && isBlank(bytes[lineEnd - 1])) lineEnd--;
  if (start === lineEnd) return undefined;

  let keyEnd = start;
  while (keyEnd < lineEnd && bytes[keyEnd] !== COLON) keyEnd++;
  let valueStart: number;
  if (keyEnd < lineEnd) {
    valueStart = keyEnd + 1;
    while (keyEnd > start && isBlank(bytes[keyEnd - 1])) keyEnd--;
  } else {
    keyEnd = start;
    while (keyEnd < lineEnd && !isBlank(bytes[keyEnd])) keyEnd++;
    if (keyEnd === lineEnd) return undefined;
    valueStart = keyEnd;
    while (isBlank(bytes[valueStart])) valueStart++;
    for (let i = valueStart; i < lineEnd; i++) if (isBlank(bytes[i])) return undefined;
  }
  while (valueStart < lineEnd && isBlank(bytes[valueStart])) valueStart++;

  const keyLength = keyEnd - start;
  if (keyLength === 0 || keyLength > LONGEST_KEY) return undefined;
  let key = '';
  for (let i = start; i < keyEnd; i++) {
    const b = bytes[i]!;
    key += String.fromCharCode(b >= 0x41 && b <= 0x5a ? b | 0x20 : b);
  }
  return { key, valueStart, valueEnd: lineEnd };
}

/**
 * The product token of a user-agent value: '*' (also when followed by other words), or
 * the leading run of letters, '_' and '-' (RFC 9309 identifier), lower-cased.
 * "FooBot/1.2" and "FooBot extra words" both name "foobot".
 */
function agentToken(bytes: Uint8Array, start: number, end: number): string {
  if (bytes[start] === STAR && (start + 1 === end || isBlank(bytes[start + 1]))) return '*';
  let token = '';
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b >= 0x41 && b <= 0x5a) token += String.fromCharCode(b | 0x20);
    else if ((b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x5f) token += String.fromCharCode(b);
    else break;
  }
  return token;
}

function isHexDigit(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66));
}

/**
 * RFC 9309 §2.2.2: octets outside US-ASCII (and octets never valid in a URI) are
 * percent-encoded before comparison; existing escapes get upper-case hex digits so that
 * %e3 and %E3 compare equal. Everything else, '*' and '$' included, stays as written.
 */
function encodePattern(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b === PERCENT && i + 2 < end && isHexDigit(bytes[i + 1]) && isHexDigit(bytes[i + 2])) {
      out += '%' + String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!).toUpperCase();
      i += 2;
    } else if (MUST_ENCODE[b] === 1) {
      out += '%' + HEX_DIGITS[b >> 4] + HEX_DIGITS[b & 15];
    } else {
      out += String.fromCharCode(b);
    }
  }
  return out;
}

function asciiString(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

const DECIMAL_SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A non-negative decimal number of seconds ("10", "0.5"); anything else is ignored. */
function parseCrawlDelay(value: string): number | undefined {
  if (!DECIMAL_SECONDS.test(value)) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? seconds : undefined;
}

function absoluteHttpUrl(value: string): string | undefined {
  const url = URL.parse(value.trim());
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  return url.href;
}

/** The characters of a path or query that must be compared in %XX form (see encodePattern). */
export function mustBePercentEncoded(charCode: number): boolean {
  return charCode < 0x80 && MUST_ENCODE[charCode] === 1;
}
