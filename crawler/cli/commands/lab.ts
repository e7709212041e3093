import { runLab } from '../../lab/run-lab.ts';
import { UsageError } from '../../errors.ts';
import { strategyNames } from '../../ordering/registry.ts';
import { openCollection } from '../../store/database.ts';
import { parseCommandArgs, requireOption } from '../args.ts';
import { writeOut } from '../terminal-text.ts';

const DEFAULT_BUDGETS = [0.05, 0.1, 0.2, 0.4];
/** As many as the app's lab call takes: each budget is a virtual crawl. */
const MAX_BUDGETS = 20;

/** Fractions of the stored pages, each above 0 and at most 1. */
function budgetsOption(value: string | undefined): number[] {
  if (value === undefined) return DEFAULT_BUDGETS;
  const budgets = value.split(',').map((b) => (b.trim() === '' ? Number.NaN : Number(b)));
  if (budgets.length > MAX_BUDGETS || budgets.some((b) => !(b > 0 && b <= 1))) {
    throw new UsageError(`--budgets must be 1 to ${MAX_BUDGETS} fractions of the stored pages, each above 0 and at most 1 (such as 0.05,0.1), got "${value}"`, { option: 'budgets' });
  }
  return budgets;
}

/** `forager lab`: replays the stored crawl under each strategy and reports PST and harvest rate. */
export function labCommand(argv: string[]): number {
  const { values } = parseCommandArgs('lab', argv, {
    db: { type: 'string' },
    strategies: { type: 'string' },
    hot: { type: 'string' },
    budgets: { type: 'string' },
    judge: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.judge !== undefined && values.judge !== 'truth' && values.judge !== 'live') {
    throw new UsageError(`--judge is truth (strategies learn from the hot pages) or live (from the collection's own judge), got "${values.judge}"`, { option: 'judge' });
  }
  const dbPath = requireOption('lab', 'db', values.db);
  const strategies = values.strategies?.split(',').map((s) => s.trim()) ?? strategyNames();
  const budgets = budgetsOption(values.budgets);
  const db = openCollection(dbPath, { create: false, readonly: true });
  try {
    const report = runLab(db, { strategies, budgets, ...(values.hot === undefined ? {} : { hot: values.hot }), ...(values.judge === undefined ? {} : { judge: values.judge }) });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return 0;
    }
    const c = report.collection;
    const lines = [
      `${c.pages} stored pages, ${c.hotPages} hot (${report.hotRule}), ${c.links} links, ${c.seeds} seeds; strategies learn from ${report.judge === 'live' ? "the collection's own judge" : 'the hot pages'}`,
      `${'strategy'.padEnd(10)} ${budgets.map((b) => `PST@${b * 100}%`.padStart(9)).join('')} ${budgets.map((b) => `harv@${b * 100}%`.padStart(10)).join('')}`,
      ...report.results.map(
        (r) =>
          `${r.strategy.padEnd(10)} ${r.budgets.map((b) => (b.pst === null ? 'n/a' : b.pst.toFixed(3)).padStart(9)).join('')} ${r.budgets.map((b) => b.harvest.toFixed(3).padStart(10)).join('')}`,
      ),
    ];
    writeOut(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    db.close();
  }
}
