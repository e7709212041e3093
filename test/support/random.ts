/** Deterministic pseudo-random bytes (xorshift32), so a failure can be replayed. */
export function pseudoRandomBytes(length: number, seed = 0x2545f491): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** `count` deterministic pseudo-random words `<prefix><number below vocabulary>`: text whose simhash is its own. */
export function pseudoWords(seed: number, count: number, prefix = 'term', vocabulary = 5000): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(`${prefix}${x % vocabulary}`);
  }
  return out.join(' ');
}
