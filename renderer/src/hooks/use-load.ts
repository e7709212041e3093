import { startTransition, useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** Replaces the data in place (after an edit the service confirmed). */
  set: (data: T) => void;
}

/**
 * Runs `load` when its dependencies change and keeps the latest answer; answers to
 * superseded requests are dropped, so a slow old reply cannot overwrite a newer one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const ticket = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (ticket !== latest.current) return;
        // Showing a new answer (a page list, a report) may be a big render: let it yield.
        startTransition(() => {
          setData(value);
          setError(undefined);
          setLoading(false);
        });
      },
      (reason: unknown) => {
        if (ticket !== latest.current) return;
        setError(reason);
        setLoading(false);
      },
    );
    // `load` is a fresh closure each render; the caller's deps say when it changed.
  }, [...deps, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload, set: setData };
}
