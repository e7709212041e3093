/**
 * Netscape cookies.txt files: the line grammar is crawler/protocol/cookies-txt.ts (shared with
 * the New crawl form); this adds what needs the rest of the crawler: the public suffix list,
 * a typed error naming the malformed lines, and reading the file.
 */
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { getPublicSuffix } from 'tough-cookie';
import { UsageError } from '../errors.ts';
import { parseCookieLines, type CookieLineProblem, type ImportedCookie } from '../protocol/cookies-txt.ts';

export type { CookieLineProblem, ImportedCookie };

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

/** Only so many problems are listed: a file that is not a cookies.txt at all would otherwise make a message as long as itself. */
const MAX_PROBLEMS_LISTED = 10;

/**
 * Parses a cookies.txt. Malformed lines make a CookiesFileError naming each; `source` names
 * the file in its message. Cookies already expired are left out: a browser would not send them.
 */
export function parseCookiesTxt(text: string, source: string, now: number = Date.now()): ImportedCookie[] {
  const { cookies, problems } = parseCookieLines(text, now, publicSuffixProblem);
  if (problems.length > 0) throw new CookiesFileError(source, problems);
  return cookies;
}

/** As a Set-Cookie's Domain is refused there (RFC 6265 §5.3): such a cookie would go to every site under it. */
function publicSuffixProblem(cookie: ImportedCookie): string | undefined {
  if (!cookie.includeSubdomains || isIP(cookie.domain.replace(/^\[|\]$/g, '')) !== 0) return undefined;
  if (getPublicSuffix(cookie.domain, { allowSpecialUseDomain: true, ignoreError: true }) !== undefined) return undefined;
  return 'the domain (field 1) is a public suffix (such as com or co.uk), whose every site would get the cookie';
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
