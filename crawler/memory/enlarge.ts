/** Growing a typed array without making its new room resident, and freeing the old one at once. */
import { freeWholeView } from './free-buffer.ts';

type Column = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

/**
 * `column` with room for `capacity` entries; new entries hold `fill`. The old column's memory
 * is freed at once (detached, so no reference to it may be kept): per-URL columns grow by
 * half when the URLs outgrow them, at about the same time, and old columns left for V8 to
 * collect held that much memory until its next full collection. The new column is allocated
 * fresh and the values copied, rather than moved with `ArrayBuffer.transfer(capacity)`: that
 * zero-fills the new tail by hand, so the whole capacity became resident at once (growing a
 * written 32 MB column to 96 MB added 64 MB of RSS), where fresh pages cost memory only when
 * an entry is written. A non-zero `fill` touches the tail likewise, so large columns encode
 * "empty" as 0.
 */
export function enlarge<T extends Column>(column: T, capacity: number, fill = 0): T {
  const length = column.length;
  const Column = column.constructor as new (length: number) => T;
  const next = new Column(capacity);
  next.set(column);
  freeWholeView(column);
  if (fill !== 0) next.fill(fill, length);
  return next;
}
