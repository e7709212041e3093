import { useEffect, useRef, useState } from 'react';

export interface Polled<T> {
  /** The latest answer, kept while later polls fail (the screen says it is stale). */
  data: T | undefined;
  /** The latest poll's error, cleared by the next answer. */
  error: unknown;
  /** When `data` arrived (epoch ms), or null. */
  at: number | null;
}

/**
 * Calls `load` now and then `intervalMs` after each answer (never two at once, so a slow
 * service is not piled on), until the component unmounts.
 */
export function usePoll<T>(load: () => Promise<T>, intervalMs: number): Polled<T> {
  const [state, setState] = useState<Polled<T>>({ data: undefined, error: undefined, at: null });
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = (): void => {
      loadRef.current().then(
        (data) => {
          if (!stopped) setState({ data, error: undefined, at: Date.now() });
        },
        (error: unknown) => {
          if (!stopped) setState((previous) => ({ ...previous, error }));
        },
      ).finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
    };
    tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [intervalMs]);

  return state;
}
