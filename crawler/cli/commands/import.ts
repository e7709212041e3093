import { importWacz } from '../../import/import-wacz.ts';
import { withWriterLock } from '../../store/writer-lock.ts';
import { parseCommandArgs, requireOption } from '../args.ts';
import { writeOut } from '../terminal-text.ts';

/** `forager import --wacz FILE --db NEW`: a WACZ that Forager exported, back as a collection. */
export async function importCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('import', argv, { wacz: { type: 'string' }, db: { type: 'string' }, json: { type: 'boolean' } });
  const waczPath = requireOption('import', 'wacz', values.wacz);
  const dbPath = requireOption('import', 'db', values.db);
  const summary = await withWriterLock(dbPath, 'forager import (command line)', () => importWacz(waczPath, dbPath));
  if (values.json === true) process.stdout.write(`${JSON.stringify({ ...summary, db: dbPath })}\n`);
  else writeOut(`imported ${summary.pages} pages (${summary.links} links, ${summary.labels} labels) for the query "${summary.query}" into ${dbPath}\n`);
  const { responses, revisits } = summary.skipped;
  if (responses + revisits > 0 && !values.json) {
    process.stderr.write(
      `forager: note: ${responses} other ${responses === 1 ? 'response' : 'responses'} and ${revisits} ${revisits === 1 ? 'revisit' : 'revisits'} of the archive's pages were not imported: a collection keeps the latest version of each page\n`,
    );
  }
  if (summary.tightened.length > 0 && !values.json) {
    process.stderr.write(
      `forager: note: the archive's ${summary.tightened.join(', ')} ${summary.tightened.length === 1 ? 'was' : 'were'} made safer: an archive cannot allow private addresses, lower politeness or raise size caps${summary.tightened.includes('allowPrivate') ? ` (to crawl private addresses from it, run forager resume --db ${dbPath} --allow-private)` : ''}\n`,
    );
  }
  return 0;
}
