/*
 * A list of seed URLs as people write it: `forager crawl --seeds-file FILE` and the New crawl
 * form's seeds box read it with this one parser.
 *
 * One URL a line. Blank lines and lines starting with `#` are ignored, and so is a comment
 * after the URL that starts with whitespace and `#` (`https://example.org/  # the docs`): a
 * URL holds no whitespace, so its own `#fragment` is never taken for one. A line that is not
 * an http(s) URL is reported with its number; a URL given twice is kept once.
 */

export interface SeedListEntry {
  /** Its line number, from 1. */
  line: number;
  url: string;
}

export interface SeedListProblem {
  line: number;
  /** Why the line is not a seed, as a phrase: `“www.example.org” is not a web address: …`. */
  message: string;
}

export interface SeedList {
  /** The seeds in order, each once (the first line that gave it). */
  seeds: SeedListEntry[];
  problems: SeedListProblem[];
}

const QUOTED_CHARS = 60;
const TRAILING_COMMENT = /\s+#.*$/;

function quote(text: string): string {
  return text.length > QUOTED_CHARS ? `“${text.slice(0, QUOTED_CHARS - 3)}…”` : `“${text}”`;
}

/** Why one line is not an http(s) URL, or null when it is one. */
function lineProblem(line: string, maxUrlLength: number): string | null {
  if (line.length > maxUrlLength) return `it is longer than ${maxUrlLength} characters`;
  if (/\s/.test(line)) return `${quote(line)} holds a space: give one URL a line`;
  let url: URL;
  try {
    url = new URL(line);
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.test(line)
      ? `${quote(line)} is not a valid web address`
      : `${quote(line)} is not a web address: it should start with http:// or https://`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${quote(line)} uses ${url.protocol.slice(0, -1)}, but only http and https addresses can be crawled`;
  }
  if (url.hostname === '') return `${quote(line)} has no host name`;
  if (url.username !== '' || url.password !== '') return `${quote(line)} contains a user name or password`;
  return null;
}

/** Reads a seed list; `maxUrlLength` bounds each URL. */
export function parseSeedList(text: string, maxUrlLength: number): SeedList {
  const seeds: SeedListEntry[] = [];
  const problems: SeedListProblem[] = [];
  const seen = new Set<string>();
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = raw.trim().replace(TRAILING_COMMENT, '');
    if (line === '' || line.startsWith('#')) return;
    const problem = lineProblem(line, maxUrlLength);
    if (problem !== null) {
      problems.push({ line: index + 1, message: problem });
      return;
    }
    if (seen.has(line)) return;
    seen.add(line);
    seeds.push({ line: index + 1, url: line });
  });
  return { seeds, problems };
}
