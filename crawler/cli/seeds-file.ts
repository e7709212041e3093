import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../errors.ts';
import { parseSeedList, type SeedListProblem } from '../protocol/seed-list.ts';
import { DEFAULT_SETTINGS } from '../protocol/settings.ts';
import { canonicalSeeds } from '../settings.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import { stringFlag, stringsFlag, type CrawlFlags } from './crawl-options.ts';

/** A seeds file larger than this is refused unread: 64 MiB is a million long URLs. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Bad lines described in the error; the others are counted. */
const DESCRIBED_PROBLEMS = 10;
/** Bad line numbers listed in the error. */
const LISTED_LINES = 50;

/**
 * The seeds of `crawl --seeds-file FILE` (crawler/protocol/seed-list.ts says how it is read),
 * in canonical form. An unreadable file, or any line that is not a URL Forager can crawl, is
 * one UsageError naming the bad lines by number, raised before anything is written.
 */
export function readSeedsFile(path: string): string[] {
  const text = readText(path);
  const list = parseSeedList(text, DEFAULT_SETTINGS.maxUrlLength);
  const problems: SeedListProblem[] = [...list.problems];
  const seeds: string[] = [];
  for (const entry of list.seeds) {
    const canon = tryCanonicalize(entry.url, undefined, { maxLength: DEFAULT_SETTINGS.maxUrlLength });
    if (canon.ok) seeds.push(canon.url);
    else problems.push({ line: entry.line, message: `“${entry.url}” cannot be crawled (${canon.reason})` });
  }
  if (problems.length > 0) throw badLines(path, problems.sort((a, b) => a.line - b.line));
  return [...new Set(seeds)];
}

function readText(path: string): string {
  try {
    if (statSync(path).size > MAX_FILE_BYTES) throw new UsageError(`--seeds-file ${path} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`, { path });
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`cannot read --seeds-file ${path} (${code})`, { path, code });
  }
}

function badLines(path: string, problems: readonly SeedListProblem[]): UsageError {
  const lines = problems.map((p) => p.line);
  const numbers = lines.length > LISTED_LINES ? `${lines.slice(0, LISTED_LINES).join(', ')} and ${lines.length - LISTED_LINES} more` : lines.join(', ');
  const described = problems.slice(0, DESCRIBED_PROBLEMS).map((p) => `line ${p.line}: ${p.message}`);
  if (problems.length > DESCRIBED_PROBLEMS) described.push(`and ${problems.length - DESCRIBED_PROBLEMS} more`);
  const which = lines.length === 1 ? `line ${lines[0]} is` : `lines ${numbers} are`;
  return new UsageError(`--seeds-file ${path}: ${which} not a URL to crawl; nothing was started (${described.join('; ')})`, { path, lines });
}

/** The seeds a command line names: `--seed`'s and the `--seeds-file`'s, canonical, each once (`crawl`, `cluster create`). */
export function seedsOfFlags(flags: CrawlFlags): string[] {
  const file = stringFlag(flags, 'seeds-file');
  return [...new Set([...canonicalSeeds(stringsFlag(flags, 'seed') ?? []), ...(file === undefined ? [] : readSeedsFile(file))])];
}
