/*
 * Giving memory back at once. V8 frees an ArrayBuffer's memory when it collects the buffer,
 * and a buffer that lived through two young-generation collections is collected only by the
 * next full collection, which can be tens of megabytes later: a refused bomb's decoded output
 * in the fetcher, a large body in the parse worker that parsing it carried into the old
 * generation. Detaching a buffer (transfer(0)) frees its memory now. Only for buffers nothing
 * reads any more: every view of a detached buffer reads as empty.
 */

/** Frees `buffer`'s memory now. Node's shared pool (and a SharedArrayBuffer) cannot be detached and is left to V8. */
export function freeNow(buffer: ArrayBufferLike): void {
  if (!(buffer instanceof ArrayBuffer) || buffer.detached) return;
  try {
    buffer.transfer(0);
  } catch {
    // Not detachable (a slab of Node's pool): V8 frees it with the pool.
  }
}

/** Frees the memory under `view` when the view spans all of its buffer (so holds no one else's bytes). */
export function freeWholeView(view: ArrayBufferView | null | undefined): void {
  if (view === null || view === undefined) return;
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength) freeNow(view.buffer);
}
