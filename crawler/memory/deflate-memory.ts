/**
 * zlib settings for deflating `bytes` bytes at once: a window no larger than the input
 * (9 to 15 bits) and hash tables to match. zlib's defaults allocate and clear about 300 KB
 * for every call, most of the cost of deflating a small input, for the same output: a window
 * as large as the input finds every match a larger one would. Inflating needs no setting, as
 * its default window takes any smaller one.
 */
export function deflateMemory(bytes: number): { windowBits: number; memLevel: number } {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(bytes + 1))));
  return { windowBits, memLevel: Math.min(8, Math.max(1, windowBits - 7)) };
}
