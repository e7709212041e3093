import { ForagerError, UsageError } from '../errors.ts';
import { storeErrorOf } from '../store/store-error.ts';
import { canonCommand, robotsCommand } from './commands/diagnose.ts';
import { CLUSTER_USAGE, clusterCommand, workerCommand } from './commands/cluster.ts';
import { crawlCommand, resumeCommand } from './commands/crawl.ts';
import { COOKIES_USAGE, cookiesCommand } from './commands/cookies.ts';
import { crawlUsage } from './crawl-options.ts';
import { explainCommand, labelCommand } from './commands/judge.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { labCommand } from './commands/lab.ts';
import { mergeCommand } from './commands/merge.ts';
import { REFRESH_USAGE, refreshCommand } from './commands/refresh.ts';
import { PAGES_USAGE, SEARCH_USAGE, WHEN_USAGE, pagesCommand, searchCommand, statsCommand } from './commands/inspect.ts';
import { SERVE_USAGE, serveCommand } from './commands/serve.ts';
import { strategyNames } from '../ordering/registry.ts';
import { writeErr, writeOut } from './terminal-text.ts';

type Command = (argv: string[]) => number | Promise<number>;

const COMMANDS: Record<string, Command> = {
  crawl: crawlCommand,
  resume: resumeCommand,
  refresh: refreshCommand,
  stats: statsCommand,
  pages: pagesCommand,
  search: searchCommand,
  label: labelCommand,
  cookies: cookiesCommand,
  explain: explainCommand,
  lab: labCommand,
  export: exportCommand,
  import: importCommand,
  merge: mergeCommand,
  serve: serveCommand,
  robots: robotsCommand,
  canon: canonCommand,
  cluster: clusterCommand,
  worker: workerCommand,
};

const USAGE = `usage: forager <command> [options]

  crawl   ${crawlUsage()}
  resume  --db FILE [--max-pages N] [--allow-private] [--proxy URL] [--json]
  ${REFRESH_USAGE}
          revisit stored pages (conditional requests), keep versions, mark pages gone
  stats   --db FILE [--json]
  ${PAGES_USAGE}
          ${WHEN_USAGE}
  ${SEARCH_USAGE}
  label   --db FILE --url URL --relevant|--irrelevant|--clear
  ${COOKIES_USAGE}
  explain --db FILE [--json] URL
  lab     --db FILE [--strategies ${strategyNames().join(',')}] [--hot SPEC|G]
          [--judge truth|live] [--budgets 0.05,0.1,0.2,0.4] [--json]
  ${SERVE_USAGE}
  export  --db FILE --format warc|wacz|jsonl|csv|mirror --out PATH [--hot-only] [--min-relevance X]
          [--labelled-relevant] [--skip-duplicates] [--query TEXT] [--host HOST] [--force] [--json]
  import  --wacz FILE --db NEW [--json]   a WACZ that Forager wrote, back as a collection
  merge   --dir DATA --db OUT [--force] [--json]   a crawl cluster's shards (DATA/shard-NNN.forager) as one collection
  robots  --robots-file FILE --agent NAME [--explain] URL
  canon   [--base URL] URL
  ${CLUSTER_USAGE}
`;

/** A message as one line: it may quote a server's or a page's text, whose line breaks could pass for lines of ours. */
function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** Runs one CLI command and returns the exit code. Every expected failure is one line on stderr. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    writeOut(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  try {
    if (command === undefined) throw new UsageError(`unknown command "${name}"; run forager --help`, { command: name });
    return await command(rest);
  } catch (err) {
    // A damaged or unwritable collection is the user's file, not Forager's fault: one line, no stack.
    const known = err instanceof ForagerError ? err : storeErrorOf(err);
    if (known !== undefined) {
      writeErr(`forager: ${oneLine(known.message)}\n`);
      return known instanceof UsageError ? 2 : 1;
    }
    writeErr(`forager: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
