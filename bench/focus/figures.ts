/** How the focus benchmark's tables sum up and print PST figures. */

/** The mean, NaN for no values (a column with nothing measured must not read as 0). */
export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** A figure with two decimals; a dash for one not measured. */
export const f2 = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? '  -  ' : x.toFixed(2));
