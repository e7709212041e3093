import { parseSeedList } from '../../../crawler/protocol/seed-list.ts';
import { NEW_CRAWL_INPUT_BOUNDS } from '../../../crawler/protocol/settings.ts';

/** The service refuses more seeds than this, and longer ones (crawler/service/schema.ts). */
export const MAX_SEEDS = NEW_CRAWL_INPUT_BOUNDS.seedCount;

export interface SeedLines {
  /** The valid URLs, in order, each once. */
  urls: string[];
  /** One sentence per line that is not a crawlable address. */
  problems: string[];
}

/** Reads the "Seed URLs" box as `--seeds-file` reads a file: one address per line, `#` comments and blank lines ignored. */
export function parseSeedLines(text: string): SeedLines {
  const list = parseSeedList(text, NEW_CRAWL_INPUT_BOUNDS.seedLength);
  const urls = list.seeds.map((seed) => seed.url);
  const problems = list.problems.map((problem) => `Line ${problem.line}: ${problem.message}.`);
  if (urls.length > MAX_SEEDS) problems.push(`There are ${urls.length} seed URLs; at most ${MAX_SEEDS} are allowed.`);
  return { urls, problems };
}
