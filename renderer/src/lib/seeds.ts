import { NEW_CRAWL_INPUT_BOUNDS } from '../../../crawler/protocol/settings.ts';

/** The service refuses more seeds than this, and longer ones (crawler/service/schema.ts). */
export const MAX_SEEDS = NEW_CRAWL_INPUT_BOUNDS.seedCount;
const MAX_URL_LENGTH = NEW_CRAWL_INPUT_BOUNDS.seedLength;

export interface SeedLines {
  /** The valid URLs, in order, each once. */
  urls: string[];
  /** One sentence per line that is not a crawlable address. */
  problems: string[];
}

function quote(text: string): string {
  return text.length > 60 ? `“${text.slice(0, 57)}…”` : `“${text}”`;
}

function lineProblem(line: string): string | null {
  if (line.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
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

/** Reads the "Seed URLs" box: one address per line, blank lines ignored. */
export function parseSeedLines(text: string): SeedLines {
  const urls: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const problem = lineProblem(line);
    if (problem !== null) {
      problems.push(`Line ${index + 1}: ${problem}.`);
      return;
    }
    if (seen.has(line)) return;
    seen.add(line);
    urls.push(line);
  });
  if (urls.length > MAX_SEEDS) problems.push(`There are ${urls.length} seed URLs; at most ${MAX_SEEDS} are allowed.`);
  return { urls, problems };
}
