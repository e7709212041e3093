import { mergeShards } from '../../merge/merge-shards.ts';
import { withWriterLockSync } from '../../store/writer-lock.ts';
import { parseCommandArgs, requireOption } from '../args.ts';

/** `forager merge --dir DATA --db OUT`: a crawl cluster's shards, made one collection. */
export function mergeCommand(argv: string[]): number {
  const { values } = parseCommandArgs('merge', argv, { dir: { type: 'string' }, db: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } });
  const dir = requireOption('merge', 'dir', values.dir);
  const out = requireOption('merge', 'db', values.db);
  // The output's lock first: a collection that a crawl is writing is never replaced under it.
  const s = withWriterLockSync(out, 'forager merge (command line)', () => mergeShards(dir, out, { force: values.force === true }));
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(s)}\n`);
    return 0;
  }
  const extra = [
    ...(s.versions + s.revisits > 0 ? [`${s.versions} earlier versions, ${s.revisits} revisits`] : []),
    ...(s.urlClashes > 0 ? [`${s.urlClashes} fingerprint clashes`] : []),
    ...(s.unlinkedDuplicates > 0 ? [`${s.unlinkedDuplicates} duplicates unmarked`] : []),
  ];
  process.stdout.write(
    `merged ${s.shards} shards into ${s.path}: ${s.pages} pages, ${s.urls} urls, ${s.links} links, ${s.stubsResolved} stubs resolved, ${s.conflicts} conflicts${extra.map((e) => `, ${e}`).join('')}, ${s.seconds.toFixed(1)} s\n`,
  );
  return 0;
}
