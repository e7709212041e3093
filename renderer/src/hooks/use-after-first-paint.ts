import { startTransition, useEffect, useState } from 'react';

/**
 * False until a moment after `ready` first holds. A screen paints its light parts first
 * and mounts its heavy ones in a later, interruptible render, so no single task is long.
 */
export function useAfterFirstPaint(ready: boolean): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!ready || shown) return;
    const timer = setTimeout(() => startTransition(() => setShown(true)), 0);
    return () => clearTimeout(timer);
  }, [ready, shown]);
  return shown;
}
