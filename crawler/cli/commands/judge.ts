import { UsageError } from '../../errors.ts';
import { explainUrl } from '../../library/explain.ts';
import { setLabel } from '../../library/labels.ts';
import { openCollection } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { withWriterLockSync } from '../../store/writer-lock.ts';
import { parseCommandArgs, requireOption } from '../args.ts';
import { writeOut } from '../terminal-text.ts';

/** `forager label`: the user's judgement of a fetched page, or taking it back. */
export function labelCommand(argv: string[]): number {
  const { values } = parseCommandArgs('label', argv, {
    db: { type: 'string' },
    url: { type: 'string' },
    relevant: { type: 'boolean' },
    irrelevant: { type: 'boolean' },
    clear: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const dbPath = requireOption('label', 'db', values.db);
  const url = requireOption('label', 'url', values.url);
  const chosen = [values.relevant, values.irrelevant, values.clear].filter((v) => v === true).length;
  if (chosen !== 1) throw new UsageError('label: give exactly one of --relevant, --irrelevant and --clear', { command: 'label' });
  return withWriterLockSync(dbPath, 'forager label (command line)', () => {
    const db = openCollection(dbPath, { create: false });
    try {
      const result = setLabel(db, url, values.clear === true ? null : values.relevant === true ? 'relevant' : 'irrelevant');
      const { urlId: _urlId, wasHot: _wasHot, ...shown } = result;
      const words = result.label === null ? `label cleared; the judge's verdict stands: ${result.hot ? 'hot' : 'not hot'}` : `labelled ${result.label === 'relevant' ? 'relevant' : 'not relevant'}`;
      if (values.json === true) process.stdout.write(`${JSON.stringify(shown)}\n`);
      else writeOut(`${result.url} ${words}\n`);
      return 0;
    } finally {
      db.close();
    }
  });
}

/** `forager explain`: why a queued or fetched URL has its priority. */
export function explainCommand(argv: string[]): number {
  const { values, positionals } = parseCommandArgs('explain', argv, { db: { type: 'string' }, json: { type: 'boolean' } }, true);
  const dbPath = requireOption('explain', 'db', values.db);
  if (positionals.length !== 1) throw new UsageError('explain: give exactly one URL', { command: 'explain' });
  const db = openCollection(dbPath, { create: false, readonly: true });
  try {
    const settings = loadSettings(db);
    if (settings === undefined) throw new UsageError(`${dbPath} holds no crawl`, { path: dbPath });
    const why = explainUrl(db, settings, positionals[0] as string);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(why)}\n`);
      return 0;
    }
    const lines = [
      `${why.url}  (${why.state}${why.reason ? `: ${why.reason}` : ''}, depth ${why.depth})`,
      ...(why.rule === null ? [] : [`rule: ${why.rule}`]),
      `priority ${why.priority.toFixed(4)} under ${why.strategy}`,
      ...why.signals.map((s) => `  ${s.name.padEnd(22)} value ${s.value.toFixed(4)}  contributes ${s.contribution.toFixed(4)}${s.note ? `  (${s.note})` : ''}`),
      `hot distance: ${why.hotDistance ?? '≥ 4 or unknown'}`,
      ...why.parents.slice(0, 20).map((p) => `  from ${p.url}${p.parentHot ? ' [hot]' : ''}: "${p.anchor}"`),
    ];
    if (why.fetched !== null) {
      lines.push(`fetched: relevance ${why.fetched.relevance?.toFixed(4) ?? 'n/a'}, ${why.fetched.hot ? 'hot' : 'not hot'}${why.fetched.label ? `, labelled ${why.fetched.label}` : ''}`);
    }
    writeOut(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    db.close();
  }
}
