/**
 * Ablations of the focused ordering: which evidence carries weight on which site. Each group
 * of features is held at 0 in turn (FocusedOptions.without) and every topic replayed in the
 * lab, default mode; the table shows, per site, PST@10% of the whole model and how far it
 * moves without each group (negative: the group helps there).
 */
import { f2, mean } from './figures.ts';
import { pst, replay, type SiteReplay } from './replay.ts';
import type { Topic } from './topics.ts';

export const ABLATION_GROUPS: readonly { name: string; features: readonly string[] }[] = [
  { name: 'anchors', features: ['anchor-best', 'anchor-sum'] },
  { name: 'context', features: ['context'] },
  { name: 'url', features: ['url'] },
  { name: 'index', features: ['index-body', 'index-title'] },
  { name: 'expansion', features: ['expansion'] },
  { name: 'hot-dist', features: ['hot-parent', 'near-hot'] },
  { name: 'parents', features: ['parent-max', 'parent-mean'] },
  { name: 'siblings', features: ['siblings'] },
  { name: 'folder', features: ['folder'] },
  { name: 'site', features: ['site'] },
  { name: 'copies', features: ['copies'] },
  { name: 'hub', features: ['hub'] },
  { name: 'in-links', features: ['in-links'] },
  { name: 'per-term', features: ['anchor-term', 'url-term'] },
];

export interface AblationRow {
  topic: Topic;
  full: number;
  /** Group name → PST@10% without it. */
  without: Record<string, number>;
}

/** One topic's ablation row: PST at `fetches` with every group and without each. */
export function ablateTopic(site: SiteReplay, topic: Topic, truth: Uint8Array, fetches: number): AblationRow {
  const full = pst(replay(site, topic, 'focused', 'default', fetches, truth, []), truth, fetches);
  const without: Record<string, number> = {};
  for (const group of ABLATION_GROUPS) without[group.name] = pst(replay(site, topic, 'focused', 'default', fetches, truth, group.features), truth, fetches);
  return { topic, full, without };
}

export function ablationTable(rows: readonly AblationRow[], log: (line?: string) => void): void {
  log('\nAblations (lab, default mode): PST@10% of focused, and its change without each group of evidence, per site');
  log(`${'site'.padEnd(10)} ${'full'.padStart(5)} ${ABLATION_GROUPS.map((g) => g.name.padStart(10)).join('')}`);
  const sites = [...new Set(rows.map((r) => r.topic.site))];
  const line = (label: string, rs: readonly AblationRow[]): void => {
    const full = mean(rs.map((r) => r.full));
    log(`${label.padEnd(10)} ${f2(full).padStart(5)} ${ABLATION_GROUPS.map((g) => signed(mean(rs.map((r) => r.without[g.name] as number)) - full).padStart(10)).join('')}`);
  };
  for (const site of sites) line(site, rows.filter((r) => r.topic.site === site));
  line('MEAN', rows);
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
}
