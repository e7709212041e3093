import { existsSync } from 'node:fs';
import { crawlInProgress } from '../../export/live-crawl.ts';
import { EXPORT_FORMATS, exportCollection, type ExportFormat } from '../../export/run-export.ts';
import { UsageError } from '../../errors.ts';
import type { ExportFilter } from '../../protocol/api.ts';
import { openCollection } from '../../store/database.ts';
import { numberOption, parseCommandArgs, requireOption } from '../args.ts';
import { writeErr, writeOut } from '../terminal-text.ts';

const EXPORT_OPTIONS = {
  db: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  'hot-only': { type: 'boolean' },
  'min-relevance': { type: 'string' },
  'labelled-relevant': { type: 'boolean' },
  'skip-duplicates': { type: 'boolean' },
  query: { type: 'string' },
  host: { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
} as const;

function formatOption(value: string): ExportFormat {
  if (!(EXPORT_FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got "${value}"`, { option: 'format' });
  return value as ExportFormat;
}

/** `forager export`: writes the collection, or a filtered part, as WARC, WACZ, JSONL, CSV or an offline mirror. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('export', argv, EXPORT_OPTIONS);
  const dbPath = requireOption('export', 'db', values.db);
  const format = formatOption(requireOption('export', 'format', values.format));
  const out = requireOption('export', 'out', values.out);
  if (existsSync(out) && values.force !== true) throw new UsageError(`${out} already exists; choose another --out, or add --force to replace it`, { out });
  const minRelevance = numberOption('min-relevance', values['min-relevance'], { min: 0, max: 1 });
  const filter: ExportFilter = {
    ...(values['hot-only'] === true && { hotOnly: true }),
    ...(minRelevance !== undefined && { minRelevance }),
    ...(values['labelled-relevant'] === true && { labelledRelevant: true }),
    ...(values['skip-duplicates'] === true && { skipDuplicates: true }),
    ...(values.query !== undefined && { text: values.query }),
    ...(values.host !== undefined && { host: values.host }),
  };
  // Read-only and a connection of its own: a crawl running in another process keeps going.
  const db = openCollection(dbPath, { create: false, readonly: true });
  try {
    const live = crawlInProgress(db);
    if (live !== undefined) {
      writeErr(`forager: note: ${dbPath} is being crawled right now (last page stored ${Math.round(live.lastUpdateMs / 1000)} s ago); this export is a snapshot of the pages stored when it began\n`);
    }
    const started = performance.now();
    const summary = await exportCollection(db, format, filter, out);
    const seconds = (performance.now() - started) / 1000;
    if (values.json === true) process.stdout.write(`${JSON.stringify({ ...summary, seconds })}\n`);
    else writeOut(`exported ${summary.pages} pages as ${format} to ${summary.path} (${summary.bytes} bytes, ${seconds.toFixed(1)} s)\n`);
    return 0;
  } finally {
    db.close();
  }
}
