/** Resolves once `condition` holds, polling every 5 ms; rejects after two seconds. */
export function waitFor(condition: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = (): void => {
      if (condition()) resolve();
      else if (Date.now() - started > 2_000) reject(new Error('timed out'));
      else setTimeout(poll, 5);
    };
    poll();
  });
}
