import { memo } from 'react';
import type { CrawlProblem } from '../../../../crawler/protocol/api.ts';
import { formatCount } from '../../lib/format.ts';
import { describeProblemKind, describeReason } from '../../lib/words.ts';

const SHOWN = 50;

function problemsKey(problems: readonly CrawlProblem[]): string {
  const first = problems[0];
  const last = problems.at(-1);
  return `${problems.length}|${first?.at}|${first?.url}|${last?.at}|${last?.url}`;
}

function newestFirst(problems: readonly CrawlProblem[]): CrawlProblem[] {
  return problems.slice().sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

/** Keys that stay with a problem as newer ones arrive, so React moves rows instead of rebuilding them all. */
function withKeys(problems: readonly CrawlProblem[]): { key: string; problem: CrawlProblem }[] {
  const seen = new Map<string, number>();
  return problems.map((problem) => {
    const base = `${problem.at}|${problem.kind}|${problem.url}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return { key: n === 0 ? base : `${base}|${n}`, problem };
  });
}

function timeOf(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString();
}

/** Recent failures, robots blocks and skips, newest first. */
export const ProblemsPanel = memo(
  function ProblemsPanel({ problems }: { problems: CrawlProblem[] }) {
    const shown = newestFirst(problems).slice(0, SHOWN);
    return (
      <section className="panel" aria-labelledby="problems-title">
        <h2 id="problems-title">Recent errors and robots blocks</h2>
        {problems.length === 0 ? (
          <p className="muted">No errors so far.</p>
        ) : (
          <>
            <table className="table compact">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Kind</th>
                  <th scope="col">URL</th>
                  <th scope="col">What happened</th>
                </tr>
              </thead>
              <tbody>
                {withKeys(shown).map(({ key, problem }) => (
                  <tr key={key}>
                    <td className="nowrap">{timeOf(problem.at)}</td>
                    <td>
                      <span className={`badge problem-${problem.kind}`}>{describeProblemKind(problem.kind)}</span>
                    </td>
                    <td className="url-cell" title={problem.url}>
                      {problem.url}
                    </td>
                    <td>{describeReason(problem.reason)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {problems.length > SHOWN && <p className="muted small">{formatCount(problems.length - SHOWN)} older ones are not shown.</p>}
          </>
        )}
      </section>
    );
  },
  (a, b) => problemsKey(a.problems) === problemsKey(b.problems),
);
