/*
 * A cap on what one stream of a document may decode to, for the document worker. pdf.js decodes
 * a stream whole, into one growing Uint8Array or through the native DecompressionStream (a
 * kilobyte of deflate can make a gigabyte), and that memory lies outside the V8 heap that the
 * worker's resourceLimits bound: a bomb took 2.4 GB and 22 s before this cap. pdf.js offers no
 * hook on its decoders, but it reaches them through globals, so the worker changes those:
 *  - Uint8Array and ArrayBuffer refuse a length past the limit (a RangeError, which fails the
 *    page that draws the stream);
 *  - DecompressionStream is taken away, so that pdf.js inflates in JavaScript, through those
 *    buffers, on this thread (where the pool's CPU cap sees the work). It costs no CPU: R's
 *    reference manual read in 12.0 s of CPU without it and 12.3 s with it, and 3 s less of
 *    wall-clock time, the native one waiting on libuv's thread pool for each stream.
 * Only the document worker installs it: it changes its thread's globals, and nothing else runs
 * there.
 */

let limitBytes = Number.POSITIVE_INFINITY;
let refusals = 0;

function refuse(bytes: number): RangeError {
  refusals++;
  return new RangeError(`${bytes} bytes are past the document cap of ${limitBytes}`);
}

/** The constructor, refusing a length past the limit. */
function capped<T extends abstract new (...args: never[]) => object>(constructor: T): T {
  return new Proxy(constructor, {
    construct(target, args, newTarget) {
      const length: unknown = args[0];
      if (typeof length === 'number' && length > limitBytes) throw refuse(length);
      return Reflect.construct(target, args, newTarget) as object;
    },
  });
}

/** Caps buffers on this thread, and takes native decompression away from it (see above). */
export function installAllocationCap(): void {
  globalThis.Uint8Array = capped(Uint8Array);
  globalThis.ArrayBuffer = capped(ArrayBuffer);
  delete (globalThis as { DecompressionStream?: unknown }).DecompressionStream;
}

/** The largest buffer allowed from now on (per document: it follows the document's own limits). */
export function setAllocationLimit(bytes: number): void {
  limitBytes = bytes;
}

/** How many allocations the cap has refused on this thread so far: a reader compares before and after. */
export function refusedAllocations(): number {
  return refusals;
}
