import { importWacz } from '../../import/import-wacz.ts';
import { parseCommandArgs, requireOption } from '../args.ts';

/** `forager import --wacz FILE --db NEW`: a WACZ that Forager exported, back as a collection. */
export async function importCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('import', argv, { wacz: { type: 'string' }, db: { type: 'string' }, json: { type: 'boolean' } });
  const waczPath = requireOption('import', 'wacz', values.wacz);
  const dbPath = requireOption('import', 'db', values.db);
  const summary = await importWacz(waczPath, dbPath);
  process.stdout.write(
    values.json
      ? `${JSON.stringify({ ...summary, db: dbPath })}\n`
      : `imported ${summary.pages} pages (${summary.links} links, ${summary.labels} labels) for the query "${summary.query}" into ${dbPath}\n`,
  );
  return 0;
}
