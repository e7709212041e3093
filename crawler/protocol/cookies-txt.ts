/*
 * Reading a Netscape cookies.txt, as curl, wget and browser extensions write it: one cookie a
 * line, seven TAB-separated fields (domain, include-subdomains flag, path, secure, expiry in
 * epoch seconds with 0 for a session cookie, name, value). `#HttpOnly_` before the domain marks
 * an HttpOnly cookie; other lines starting with `#` are comments. Pure, so the New crawl form
 * names the malformed lines as they are pasted; crawler/net/cookies-txt.ts adds the check that
 * needs the public suffix list and reads files.
 */

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

export interface CookiesTxtReading {
  /** The well-formed lines' cookies, those already expired left out (a browser would not send them). */
  cookies: ImportedCookie[];
  problems: CookieLineProblem[];
}

/** A further check of a well-formed cookie: what is wrong with it, or undefined. */
export type CookieCheck = (cookie: ImportedCookie) => string | undefined;

const HTTP_ONLY_PREFIX = '#HttpOnly_';
/**
 * What browsers accept, not RFC 6265's stricter grammar (exported files hold what browsers
 * kept): a name without a control character, space, `=` or `;`, a value without a control
 * character or `;`. Either would make another Cookie header than the one meant.
 */
const COOKIE_NAME = /^[^\x00-\x20\x7F=;]+$/;
const COOKIE_VALUE = /^[^\x00-\x1F\x7F;]*$/;
const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;
const FLAG = /^(TRUE|FALSE)$/i;

/** Reads a cookies.txt's text: its cookies, and each malformed line's number and problem. */
export function parseCookieLines(text: string, now: number = Date.now(), check?: CookieCheck): CookiesTxtReading {
  const cookies: ImportedCookie[] = [];
  const problems: CookieLineProblem[] = [];
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, index) => {
    const parsed = parseLine(raw);
    if (parsed === undefined) return;
    const problem = typeof parsed === 'string' ? parsed : check?.(parsed);
    if (problem !== undefined) problems.push({ line: index + 1, problem });
    else if (typeof parsed !== 'string' && (parsed.expiresAt === undefined || parsed.expiresAt > now)) cookies.push(parsed);
  });
  return { cookies, problems };
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
  const seconds = Number(expiry);
  return {
    domain,
    // A leading dot in the domain also means the subdomains (old files set the flag and the dot together).
    includeSubdomains: subdomains.toUpperCase() === 'TRUE' || rawDomain.trim().startsWith('.'),
    path,
    secure: secure.toUpperCase() === 'TRUE',
    httpOnly,
    expiresAt: seconds === 0 ? undefined : seconds * 1000,
    name,
    value,
  };
}
