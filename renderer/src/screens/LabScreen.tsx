import { useMemo, useState, type FormEvent } from 'react';
import type uPlot from 'uplot';
import type { LabReport } from '../../../crawler/protocol/api.ts';
import { CheckField, Field } from '../components/Field.tsx';
import { ErrorNote, LoadingNote } from '../components/Notes.tsx';
import { UPlotChart } from '../components/UPlotChart.tsx';
import { formatCount, formatPercent } from '../lib/format.ts';
import { parseBudgets } from '../lib/forms.ts';
import { alignCurves } from '../lib/series.ts';
import { useClient, useInfo } from '../state/contexts.ts';

const DEFAULT_BUDGETS = '0.05,0.1,0.2,0.4';
const PREFERRED = ['bfs', 'focused'];
const COLOURS = ['#1f7a6d', '#b5651d', '#3b5ba9', '#a23b72', '#6b8e23', '#7a5195', '#c0392b', '#2c3e50'];
const MAX_CURVE_POINTS = 400;

/** Replays the stored crawl under several strategies and compares how soon each finds the hot pages. */
export function LabScreen({ collection }: { collection: string }) {
  const client = useClient();
  const info = useInfo();
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => {
    const preferred = info.strategies.filter((s) => PREFERRED.includes(s));
    return new Set(preferred.length > 0 ? preferred : info.strategies.slice(0, 1));
  });
  const [budgets, setBudgets] = useState(DEFAULT_BUDGETS);
  const [hot, setHot] = useState('');
  const [liveJudge, setLiveJudge] = useState(false);
  const [formError, setFormError] = useState<{ field: 'strategies' | 'budgets'; message: string } | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [report, setReport] = useState<LabReport | null>(null);

  const toggle = (strategy: string, on: boolean): void => {
    setChosen((old) => {
      const next = new Set(old);
      if (on) next.add(strategy);
      else next.delete(strategy);
      return next;
    });
  };

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const strategies = info.strategies.filter((s) => chosen.has(s));
    if (strategies.length === 0) {
      setFormError({ field: 'strategies', message: 'Choose at least one strategy to compare.' });
      return;
    }
    const parsed = parseBudgets(budgets);
    if (!parsed.ok) {
      setFormError({ field: 'budgets', message: parsed.error });
      return;
    }
    setFormError(null);
    setError(undefined);
    setRunning(true);
    try {
      const input = {
        collection,
        strategies,
        budgets: parsed.value,
        ...(hot.trim() === '' ? {} : { hot: hot.trim() }),
        ...(liveJudge ? { judge: 'live' as const } : {}),
      };
      setReport(await client.api.runLab(input));
    } catch (e) {
      setError(e);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section className="screen">
      <h1>Lab</h1>
      <p className="lead">
        The lab replays this crawl’s stored pages and links under each strategy, as if it had crawled them in that order,
        and measures how many of the hot pages it would have found within a budget (PST) and what share of what it fetched
        was hot (harvest rate).
      </p>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset className="strategy-choice" aria-describedby={formError?.field === 'strategies' ? 'lab-strategies-error' : undefined}>
          <legend>Strategies</legend>
          {info.strategies.map((strategy) => (
            <span key={strategy} className="check-inline">
              <input id={`lab-strategy-${strategy}`} type="checkbox" checked={chosen.has(strategy)} onChange={(e) => toggle(strategy, e.target.checked)} />
              <label htmlFor={`lab-strategy-${strategy}`}>{strategy}</label>
            </span>
          ))}
          {formError?.field === 'strategies' && (
            <p id="lab-strategies-error" className="field-error">
              {formError.message}
            </p>
          )}
        </fieldset>
        <div className="form-row">
          <Field id="lab-budgets" label="Budgets" error={formError?.field === 'budgets' ? formError.message : undefined} hint="Fractions of the stored pages, separated by commas: 0.1 is a tenth.">
            {(props) => <input {...props} type="text" value={budgets} onChange={(e) => setBudgets(e.target.value)} />}
          </Field>
          <Field id="lab-hot" label="Hot predicate (optional)" hint="Judge hot pages by a rule such as title:wal|body>=3:checkpoint instead of the stored verdicts.">
            {(props) => <input {...props} type="text" spellCheck={false} value={hot} onChange={(e) => setHot(e.target.value)} />}
          </Field>
        </div>
        <CheckField
          id="lab-live-judge"
          label="Learn from the crawl's own judge"
          checked={liveJudge}
          onChange={setLiveJudge}
          hint="As in a real crawl: the strategies learn from a fresh judge's verdicts, and are scored against the hot pages above."
        />
        <div className="form-actions">
          <button type="submit" disabled={running}>
            {running ? 'Running…' : 'Run lab'}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {running && <LoadingNote>Replaying the crawl under each strategy; a large collection takes a while.</LoadingNote>}
      {report !== null && <LabResults report={report} />}
    </section>
  );
}

function LabResults({ report }: { report: LabReport }) {
  const budgets = report.results[0]?.budgets ?? [];
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      scales: { x: { time: false }, y: { range: [0, 1] } },
      series: [
        { label: 'Pages fetched' },
        ...report.results.map((result, i) => ({
          label: result.strategy,
          stroke: COLOURS[i % COLOURS.length] ?? '#333',
          width: 2,
          spanGaps: true,
          value: (_u: uPlot, v: number | null) => (v === null ? '–' : formatPercent(v)),
        })),
      ],
      axes: [{ label: 'Pages fetched' }, { label: 'PST (hot pages found)', values: (_u, ticks) => ticks.map((t) => `${Math.round(t * 100)}%`) }],
    }),
    [report],
  );
  const data = useMemo<uPlot.AlignedData>(() => {
    const aligned = alignCurves(
      report.results.map((r) => ({ x: r.curve.pages, y: r.curve.pst })),
      MAX_CURVE_POINTS,
    );
    return [aligned.x, ...aligned.ys] as uPlot.AlignedData;
  }, [report]);

  return (
    <section className="panel lab-results" aria-labelledby="lab-results-title">
      <h2 id="lab-results-title">Results</h2>
      <p className="muted">
        {formatCount(report.collection.pages)} stored pages, {formatCount(report.collection.hotPages)} of them hot ({report.hotRule}); {formatCount(report.collection.links)} links.
      </p>
      {report.collection.hotPages === 0 && <p className="note">No stored page is hot under this rule, so PST cannot be measured. Try a hot predicate.</p>}
      <div className="table-scroll">
        <table className="table lab-table">
          <thead>
            <tr>
              <th scope="col" rowSpan={2}>
                Strategy
              </th>
              {budgets.map((b) => (
                <th key={b.budget} scope="colgroup" colSpan={2} className="num">
                  Budget {formatPercent(b.budget, 0)} ({formatCount(b.pages)} pages)
                </th>
              ))}
            </tr>
            <tr>
              {budgets.map((b) => [
                <th key={`${b.budget}-pst`} scope="col" className="num">
                  PST
                </th>,
                <th key={`${b.budget}-harvest`} scope="col" className="num">
                  Harvest
                </th>,
              ])}
            </tr>
          </thead>
          <tbody>
            {report.results.map((result) => (
              <tr key={result.strategy}>
                <th scope="row">{result.strategy}</th>
                {result.budgets.map((b) => [
                  <td key={`${b.budget}-pst`} className="num">
                    {formatPercent(b.pst)}
                  </td>,
                  <td key={`${b.budget}-harvest`} className="num">
                    {formatPercent(b.harvest)}
                  </td>,
                ])}
              </tr>
            ))}
            <tr className="muted">
              <th scope="row">random order (expected)</th>
              {budgets.map((b) => [
                <td key={`${b.budget}-pst`} className="num">
                  {formatPercent(b.randomPst)}
                </td>,
                <td key={`${b.budget}-harvest`} className="num">
                  –
                </td>,
              ])}
            </tr>
          </tbody>
        </table>
      </div>
      <h3>PST over pages fetched</h3>
      <UPlotChart options={options} data={data} height={300} label="Share of hot pages found over pages fetched, one line per strategy" />
    </section>
  );
}
