/**
 * 64-bit URL fingerprints for the seen test (Broder, Najork & Wiener 2003). For n URLs the
 * chance of any collision is about n²/2^65: 3·10^-4 at 10^8 URLs.
 *
 * The hash is a two-lane multiply-rotate design in the style of MurmurHash3 x86_128, cut to
 * 64 bits: every 32-bit word (two UTF-16 code units) is mixed into both lanes with
 * different constants, the lanes are cross-added after each word, and each lane gets the
 * murmur3 fmix32 avalanche at the end. It works on UTF-16 code units, so it needs no UTF-8
 * encoding and no allocation. On 88-character URLs (Node 24, this project's 2-core test
 * machine) it measured 2.9 M/s returning a bigint and 5.3 M/s returning the halves, against
 * 0.8 M/s for 8 bytes of crypto.hash('sha1'). On 3 × 10^7 synthetic URLs it had no 64-bit
 * collision, and each 32-bit half collided as often as a random function would.
 *
 * Fingerprints are stored in collections: never change this function's output.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

// Results of the last hash: two numbers returned without allocating an object.
let outHi = 0;
let outLo = 0;

function hash64(s: string): void {
  let h1 = 0x9368e53c;
  let h2 = 0x2f6af274;
  const n = s.length;
  const even = n & ~1;
  for (let i = 0; i < even; i += 2) {
    const w = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    let k1 = Math.imul(w, C1);
    k1 = Math.imul((k1 << 15) | (k1 >>> 17), C2);
    h1 ^= k1;
    h1 = (h1 << 19) | (h1 >>> 13);
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;
    let k2 = Math.imul(w, C3);
    k2 = Math.imul((k2 << 16) | (k2 >>> 16), C4);
    h2 ^= k2;
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;
    h1 = (h1 + h2) | 0;
    h2 = (h2 + h1) | 0;
  }
  if (even !== n) {
    const w = s.charCodeAt(even);
    let k1 = Math.imul(w, C1);
    k1 = Math.imul((k1 << 15) | (k1 >>> 17), C2);
    h1 ^= k1;
    let k2 = Math.imul(w, C3);
    k2 = Math.imul((k2 << 16) | (k2 >>> 16), C4);
    h2 ^= k2;
  }
  h1 ^= n;
  h2 ^= n;
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  h1 = fmix32(h1);
  h2 = fmix32(h2);
  h1 = (h1 + h2) | 0;
  h2 = (h2 + h1) | 0;
  outHi = h1;
  outLo = h2;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The fingerprint as a signed 64-bit bigint, ready for an SQLite INTEGER column. */
export function fingerprint(canonicalUrl: string): bigint {
  hash64(canonicalUrl);
  return partsToBigInt(outHi, outLo);
}

function partsToBigInt(hi: number, lo: number): bigint {
  return BigInt.asIntN(64, (BigInt(hi | 0) << 32n) | BigInt(lo >>> 0));
}
