import { useState, type FormEvent } from 'react';
import type { ExportFormat, ExportResult } from '../../../crawler/protocol/api.ts';
import { CheckField, Field } from '../components/Field.tsx';
import { ErrorNote } from '../components/Notes.tsx';
import { formatBytes, formatCount } from '../lib/format.ts';
import { exportFilter, type ExportField, type ExportFields, type FieldErrors } from '../lib/forms.ts';
import { useClient, useInfo } from '../state/contexts.ts';

const FORMAT_WORDS: Readonly<Record<ExportFormat, string>> = {
  warc: 'WARC 1.1 (web archive, for replay tools)',
  wacz: 'WACZ (web archive with index and page list, opens in ReplayWeb.page)',
  jsonl: 'JSON Lines (one page per line, for programs)',
  csv: 'CSV (for spreadsheets)',
  mirror: 'Offline mirror (a zip of the pages and an index, opens in any browser)',
};

/** Writes a selection of the stored pages to a file the user keeps. */
export function ExportScreen({ collection }: { collection: string }) {
  const client = useClient();
  const info = useInfo();
  const [format, setFormat] = useState<ExportFormat>(info.exportFormats[0] ?? 'jsonl');
  const [fields, setFields] = useState<ExportFields>({ hotOnly: false, minRelevance: '', labelledRelevant: false, text: '', host: '', skipDuplicates: false });
  const [errors, setErrors] = useState<FieldErrors<ExportField>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<{ result: ExportResult; saved: boolean } | null>(null);

  const set = <K extends ExportField>(key: K, value: ExportFields[K]): void => setFields((old) => ({ ...old, [key]: value }));

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const parsed = exportFilter(fields);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setError(undefined);
    setDone(null);
    setBusy(true);
    try {
      const result = await client.api.exportCollection({ collection, format, filter: parsed.value });
      const saved = await client.saveExport(result);
      setDone({ result, saved });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="screen narrow">
      <h1>Export</h1>
      <p className="lead">Save the stored pages, or a selection of them, with their URL, title, relevance, hot verdict, label and text.</p>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <Field id="export-format" label="Format">
          {(props) => (
            <select {...props} value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)}>
              {info.exportFormats.map((f) => (
                <option key={f} value={f}>
                  {FORMAT_WORDS[f] ?? f}
                </option>
              ))}
            </select>
          )}
        </Field>
        <fieldset>
          <legend>Which pages</legend>
          <CheckField id="export-hot" label="Hot pages only" checked={fields.hotOnly} onChange={(v) => set('hotOnly', v)} />
          <CheckField id="export-labelled" label="Only pages marked relevant" checked={fields.labelledRelevant} onChange={(v) => set('labelledRelevant', v)} />
          <CheckField id="export-no-duplicates" label="Leave out duplicates and soft 404s" checked={fields.skipDuplicates} onChange={(v) => set('skipDuplicates', v)} />
          <div className="form-row">
            <Field id="export-min-relevance" label="Minimum relevance" error={errors.minRelevance} hint="Between 0 and 1; blank for any.">
              {(props) => <input {...props} type="number" min={0} max={1} step={0.01} value={fields.minRelevance} onChange={(e) => set('minRelevance', e.target.value)} />}
            </Field>
            <Field id="export-host" label="Host" hint="Only pages from this host, e.g. www.sqlite.org; blank for all.">
              {(props) => <input {...props} type="text" spellCheck={false} value={fields.host} onChange={(e) => set('host', e.target.value)} />}
            </Field>
          </div>
          <Field id="export-text" label="Text query" hint="Only pages matching these words (full-text search); blank for all.">
            {(props) => <input {...props} type="text" value={fields.text} onChange={(e) => set('text', e.target.value)} />}
          </Field>
        </fieldset>
        <ErrorNote error={error} />
        <div className="form-actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Exporting…' : 'Export'}
          </button>
        </div>
      </form>
      {done !== null && (
        <p className="note note-success" role="status">
          {done.saved
            ? `Wrote ${formatCount(done.result.pages)} pages, ${formatCount(done.result.bytes)} bytes (${formatBytes(done.result.bytes)}), to ${done.result.fileName}.`
            : `The export of ${formatCount(done.result.pages)} pages (${formatBytes(done.result.bytes)}) was not saved.`}
        </p>
      )}
    </section>
  );
}
