import { useState } from 'react';
import type { DiffBlock, DiffPart, PageVersion, VersionDiff } from '../../../../crawler/protocol/api.ts';
import { ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { useLoad } from '../../hooks/use-load.ts';
import { formatCount, formatDateTime } from '../../lib/format.ts';
import { useClient } from '../../state/contexts.ts';

/**
 * Inserted words are underlined and deleted ones struck through (not told by colour alone),
 * and each change says what it is to a screen reader.
 */
function DiffParts({ parts }: { parts: DiffPart[] }) {
  return (
    <>
      {parts.map((part, i) =>
        part.op === 'inserted' ? (
          <ins key={i}>
            <span className="visually-hidden">inserted: </span>
            {part.text}
          </ins>
        ) : part.op === 'deleted' ? (
          <del key={i}>
            <span className="visually-hidden">deleted: </span>
            {part.text}
          </del>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}

function Block({ block }: { block: DiffBlock }) {
  switch (block.kind) {
    case 'same':
      return <p className="diff-line">{block.text}</p>;
    case 'skipped':
      return <p className="diff-skipped">{block.lines === 1 ? 'one unchanged line' : `${formatCount(block.lines)} unchanged lines`}</p>;
    case 'changed':
      return (
        <p className="diff-line diff-changed">
          <DiffParts parts={block.parts} />
        </p>
      );
  }
}

function label(v: PageVersion): string {
  return `Version ${v.version}${v.latest ? ' (latest)' : ''}, ${formatDateTime(v.fetchedAt)}`;
}

function DiffBody({ diff }: { diff: VersionDiff }) {
  const same = diff.title === null && diff.blocks.length === 0;
  return (
    <>
      <p className="diff-summary" aria-live="polite">
        {same
          ? 'The stored text of these versions is the same.'
          : `${formatCount(diff.insertedWords)} ${diff.insertedWords === 1 ? 'word' : 'words'} inserted, ${formatCount(diff.deletedWords)} deleted.`}{' '}
        <span className="muted">Inserted words are underlined, deleted words struck through.</span>
      </p>
      {diff.coarse && <p className="note">These versions differ too much to compare word by word: changed passages are shown replaced whole.</p>}
      {diff.title !== null && (
        <p className="diff-line diff-title">
          <strong>Title: </strong>
          <DiffParts parts={diff.title} />
        </p>
      )}
      {diff.blocks.map((block, i) => (
        <Block key={i} block={block} />
      ))}
    </>
  );
}

/** Two chosen versions of a page and the words that changed between their stored texts. */
export function VersionCompare({ collection, seq, versions }: { collection: string; seq: number; versions: PageVersion[] }) {
  const client = useClient();
  const newestFirst = [...versions].sort((a, b) => b.version - a.version);
  const [to, setTo] = useState(newestFirst[0]?.version ?? 1);
  const [from, setFrom] = useState(newestFirst[1]?.version ?? to);
  const diff = useLoad<VersionDiff>(() => client.api.versionDiff({ collection, seq, from, to }), [client, collection, seq, from, to]);
  const choice = (id: string, text: string, value: number, set: (v: number) => void) => (
    <div className="inline-field">
      <label htmlFor={id}>{text}</label>
      <select id={id} value={value} onChange={(e) => set(Number(e.target.value))}>
        {newestFirst.map((v) => (
          <option key={v.version} value={v.version}>
            {label(v)}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <section className="version-compare" aria-labelledby="compare-title">
      <h3 id="compare-title" className="visually-hidden">
        Compare versions
      </h3>
      <div className="compare-choices">
        {choice('compare-from', 'From', from, setFrom)}
        {choice('compare-to', 'to', to, setTo)}
      </div>
      <div className="diff-view" role="region" aria-label={`Changes from version ${from} to version ${to}`} tabIndex={0}>
        <ErrorNote error={diff.error} onRetry={diff.reload} />
        {diff.data === undefined || diff.loading ? diff.error === undefined && <LoadingNote>Comparing…</LoadingNote> : <DiffBody diff={diff.data} />}
      </div>
    </section>
  );
}
