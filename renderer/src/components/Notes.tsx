import type { ReactNode } from 'react';
import { describeError } from '../api/errors.ts';

/** An error in words, announced to screen readers. Renders nothing without an error. */
export function ErrorNote({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (error === undefined || error === null) return null;
  return (
    <div className="note note-error" role="alert">
      <p>{typeof error === 'string' ? error : describeError(error)}</p>
      {onRetry !== undefined && (
        <button type="button" className="button-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function LoadingNote({ children = 'Loading…' }: { children?: ReactNode }) {
  return (
    <p className="loading" role="status">
      {children}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="empty-state">
      <h2>{title}</h2>
      {children}
    </section>
  );
}
