import type { VersionDiff, VersionStamp } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { versionText, type VersionText } from './page-versions.ts';
import { diffText, diffWords } from './text-diff.ts';

function stamp(v: VersionText): VersionStamp {
  return { version: v.version, fetchedAt: new Date(v.fetchedAt).toISOString(), title: v.title };
}

/** What changed in a page's stored title and text from version `from` to version `to`. */
export function versionDiff(db: ReadonlyDb, seq: number, from: number, to: number): VersionDiff {
  const before = versionText(db, seq, from);
  const after = versionText(db, seq, to);
  const titleBefore = before.title ?? '';
  const titleAfter = after.title ?? '';
  const text = diffText(before.text ?? '', after.text ?? '');
  return {
    seq,
    url: after.url,
    from: stamp(before),
    to: stamp(after),
    title: titleBefore === titleAfter ? null : diffWords(titleBefore, titleAfter).parts,
    blocks: text.blocks,
    insertedWords: text.insertedWords,
    deletedWords: text.deletedWords,
    coarse: text.coarse,
  };
}
