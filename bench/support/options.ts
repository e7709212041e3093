/** A `--name VALUE` of the benchmark's command line, or `fallback` when it is not given. */
export function stringOption(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = process.argv[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

/** A numeric `--name N` of the benchmark's command line, or `fallback` when it is not given. */
export function numberOption(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got "${process.argv[at + 1] ?? ''}"`);
  return value;
}
