import { finishRefresh, startRefresh } from '../../engine/refresh-run.ts';
import { RefreshPolicy } from '../../engine/run-policy.ts';
import { UsageError } from '../../errors.ts';
import { validateSettings } from '../../settings.ts';
import { openCollection } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { withWriterLock } from '../../store/writer-lock.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';
import { runEngine } from './crawl.ts';

const REFRESH_OPTIONS = {
  db: { type: 'string' },
  'max-pages': { type: 'string' },
  host: { type: 'string', multiple: true },
  'allow-private': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export const REFRESH_USAGE = 'refresh --db FILE [--max-pages N] [--host HOST]… [--allow-private] [--json]';

/**
 * `forager refresh`: revisits a collection's stored pages with conditional requests, most
 * likely changed and most relevant first, storing new versions, marking pages gone, and
 * fetching the new pages changed ones link to. A stopped or killed refresh goes on where it was.
 */
export async function refreshCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('refresh', argv, REFRESH_OPTIONS);
  const dbPath = requireOption('refresh', 'db', values.db);
  // The app's refresh takes the same range.
  const maxFetches = integerOption('max-pages', values['max-pages'], { min: 1, max: 100_000_000 });
  const writer = 'forager refresh (command line)';
  // The lock first: a refused refresh must not leave its start behind for the next one to "continue".
  return withWriterLock(dbPath, writer, async () => {
    const db = openCollection(dbPath, { create: false });
    try {
      const stored = loadSettings(db);
      if (stored === undefined) throw new UsageError(`${dbPath} holds no crawl to refresh; start one with forager crawl`, { path: dbPath });
      const settings = validateSettings({ ...stored, allowPrivate: values['allow-private'] ?? stored.allowPrivate });
      const refresh = startRefresh(db, { ...(maxFetches === undefined ? {} : { maxFetches }), ...(values.host === undefined ? {} : { hosts: values.host }) });
      if (refresh.resumed && values.json !== true) process.stderr.write(`forager: continuing the refresh begun ${new Date(refresh.since).toISOString()}\n`);
      return await runEngine(db, dbPath, settings, values.json ?? false, { policy: new RefreshPolicy(refresh, { locksCollection: false }), writer }, (outcome) => finishRefresh(db, outcome));
    } finally {
      db.close();
    }
  });
}
