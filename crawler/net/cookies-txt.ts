/**
 * Netscape cookies.txt, as curl, wget and browser extensions write it: one cookie a line, seven
 * TAB-separated fields (domain, include-subdomains flag, path, secure, expiry in epoch seconds
 * with 0 for a session cookie, name, value). `#HttpOnly_` before the domain marks an HttpOnly
 * cookie; other lines starting with `#` are comments.
 */
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { getPublicSuffix } from 'tough-cookie';
import { UsageError } from '../errors.ts';

/** One cookie of the file, as the jar takes it. */
export interface ImportedCookie {
  /** Lowercased, without a leading dot. */
  domain: string;
  /** False: sent to the domain alone (host-only); true: to its subdomains too. */
  includeSubdomains: boolean;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  /** Epoch ms; undefined for a session cookie. */
  expiresAt: number | undefined;
  name: string;
  value: string;
}

/** What is wrong on one line; it never quotes the line (a cookie's value is a secret). */
export interface CookieLineProblem {
  line: number;
  problem: string;
}

/** A cookies.txt with malformed lines: each is named by its number (the first ten in the message). */
export class CookiesFileError extends UsageError {
  readonly problems: readonly CookieLineProblem[];

  constructor(source: string, problems: readonly CookieLineProblem[]) {
    const listed = problems.slice(0, MAX_PROBLEMS_LISTED).map((p) => `line ${p.line}: ${p.problem}`);
    if (problems.length > MAX_PROBLEMS_LISTED) listed.push(`and ${problems.length - MAX_PROBLEMS_LISTED} more`);
    super(`${source}: ${problems.length === 1 ? 'a malformed line' : `${problems.length} malformed lines`} (${listed.join('; ')})`, { source, lines: problems.map((p) => p.line) });
    this.problems = problems;
  }
}

const HTTP_ONLY_PREFIX = '#HttpOnly_';
/** Only so many problems are listed: a file that is not a cookies.txt at all would otherwise make a message as long as itself. */
const MAX_PROBLEMS_LISTED = 10;
/**
 * What browsers accept, not RFC 6265's stricter grammar (exported files hold what browsers
 * kept): a name without a control character, space, `=` or `;`, a value without a control
 * character or `;`. Either would make another Cookie header than the one meant.
 */
const COOKIE_NAME = /^[^\x00-\x20\x7F=;]+$/;
const COOKIE_VALUE = /^[^\x00-\x1F\x7F;]*$/;
const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;
const FLAG = /^(TRUE|FALSE)$/i;

/**
 * Parses a cookies.txt. Malformed lines make a CookiesFileError naming each; `source` names
 * the file in its message. Cookies already expired are left out: a browser would not send them.
 */
export function parseCookiesTxt(text: string, source: string, now: number = Date.now()): ImportedCookie[] {
  const cookies: ImportedCookie[] = [];
  const problems: CookieLineProblem[] = [];
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, index) => {
    const parsed = parseLine(raw);
    if (parsed === undefined) return;
    if (typeof parsed === 'string') problems.push({ line: index + 1, problem: parsed });
    else if (parsed.expiresAt === undefined || parsed.expiresAt > now) cookies.push(parsed);
  });
  if (problems.length > 0) throw new CookiesFileError(source, problems);
  return cookies;
}

/** A cookie, undefined for a blank or comment line, or what is wrong with the line. */
function parseLine(line: string): ImportedCookie | string | undefined {
  let text = line;
  let httpOnly = false;
  if (text.startsWith(HTTP_ONLY_PREFIX)) {
    httpOnly = true;
    text = text.slice(HTTP_ONLY_PREFIX.length);
  } else if (text.trim() === '' || text.trimStart().startsWith('#')) {
    return undefined;
  }
  const fields = text.split('\t');
  if (fields.length !== 7) return `expected 7 TAB-separated fields (domain, subdomains, path, secure, expiry, name, value), found ${fields.length}`;
  const [rawDomain, subdomains, path, secure, expiry, name, value] = fields as [string, string, string, string, string, string, string];
  const domain = rawDomain.trim().toLowerCase().replace(/^\./, '');
  if (!DOMAIN.test(domain)) return 'the domain (field 1) is not a host name';
  if (!FLAG.test(subdomains)) return 'the include-subdomains flag (field 2) is neither TRUE nor FALSE';
  if (!path.startsWith('/')) return 'the path (field 3) does not start with /';
  if (!FLAG.test(secure)) return 'the secure flag (field 4) is neither TRUE nor FALSE';
  if (!/^\d{1,16}$/.test(expiry)) return 'the expiry (field 5) is not a number of seconds';
  if (!COOKIE_NAME.test(name)) return 'the name (field 6) is empty or holds characters a cookie name cannot';
  if (!COOKIE_VALUE.test(value)) return 'the value (field 7) holds characters a cookie value cannot';
  // A leading dot in the domain also means the subdomains (old files set the flag and the dot together).
  const includeSubdomains = subdomains.toUpperCase() === 'TRUE' || rawDomain.trim().startsWith('.');
  // As a Set-Cookie's Domain is refused there (RFC 6265 §5.3): such a cookie would go to every site under it.
  if (includeSubdomains && isIP(domain.replace(/^\[|\]$/g, '')) === 0 && getPublicSuffix(domain, { allowSpecialUseDomain: true, ignoreError: true }) === undefined) {
    return 'the domain (field 1) is a public suffix (such as com or co.uk), whose every site would get the cookie';
  }
  const seconds = Number(expiry);
  return {
    domain,
    includeSubdomains,
    path,
    secure: secure.toUpperCase() === 'TRUE',
    httpOnly,
    expiresAt: seconds === 0 ? undefined : seconds * 1000,
    name,
    value,
  };
}

/** Reads and parses a cookies.txt; a file that cannot be read is a UsageError naming it (nothing of its content). */
export function readCookiesTxt(path: string, now: number = Date.now()): ImportedCookie[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the cookies file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`, { path });
  }
  return parseCookiesTxt(text, path, now);
}
