import { readFileSync } from 'node:fs';
import { UsageError } from '../../errors.ts';
import { explainMatch, parseRobots } from '../../robots/index.ts';
import { canonicalize } from '../../url/canonical.ts';
import { parseCommandArgs, requireOption } from '../args.ts';
import { writeOut } from '../terminal-text.ts';

function onePositional(command: string, positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`${command}: give exactly one ${what}`, { command });
  return positionals[0] as string;
}

/** `forager robots`: would this robots.txt let this agent fetch this URL? */
export function robotsCommand(argv: string[]): number {
  const { values, positionals } = parseCommandArgs(
    'robots',
    argv,
    { 'robots-file': { type: 'string' }, agent: { type: 'string' }, explain: { type: 'boolean' } },
    true,
  );
  const file = requireOption('robots', 'robots-file', values['robots-file']);
  const agent = requireOption('robots', 'agent', values.agent);
  const target = onePositional('robots', positionals, 'URL');
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (err) {
    throw new UsageError(`robots: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`, { file });
  }
  let url: URL;
  try {
    url = new URL(canonicalize(target));
  } catch (err) {
    throw new UsageError(`robots: invalid URL "${target}": ${err instanceof Error ? err.message : String(err)}`, { url: target });
  }
  const verdict = explainMatch(parseRobots(body), agent, url.pathname + url.search);
  writeOut(`${verdict.allowed ? 'allowed' : 'disallowed'}\n`);
  if (values.explain) process.stderr.write(`${JSON.stringify(verdict)}\n`);
  return 0;
}

/** `forager canon`: the canonical form Forager uses for the seen test. */
export function canonCommand(argv: string[]): number {
  const { values, positionals } = parseCommandArgs('canon', argv, { base: { type: 'string' } }, true);
  const raw = onePositional('canon', positionals, 'URL');
  writeOut(`${canonicalize(raw, values.base)}\n`);
  return 0;
}
