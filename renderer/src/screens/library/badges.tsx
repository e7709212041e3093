import type { LabelValue } from '../../../../crawler/protocol/api.ts';

export function HotBadge({ hot }: { hot: boolean }) {
  return hot ? <span className="badge hot">hot</span> : null;
}

export function LabelBadge({ label }: { label: LabelValue }) {
  if (label === null) return null;
  return <span className={`badge label-${label}`}>{label === 'relevant' ? 'marked relevant' : 'marked not relevant'}</span>;
}
