/*
 * Links as a worker sends them to other partitions, for measuring what Redis holds per
 * queued link: a URL of about 60 characters on one of many registrable domains (so the links
 * spread over the partitions), an anchor of about 3 words, a context of about 20, a depth and
 * the sending page's relevance. The words are drawn at random from a vocabulary of ordinary
 * English, which deflates worse than real prose would: the figure errs on the high side.
 */
import type { SentLink } from '../../crawler/cluster/link-streams.ts';

const WORDS = (
  'the of and to in is for with on that this from by at as are be or an it was which have has ' +
  'data index query table storage engine write read cache page server client network request ' +
  'garden soil harvest season tomato compost recipe oven bread sauce kitchen butter flour ' +
  'orbit planet comet galaxy telescope light star moon river harbour sail wind tide boat ' +
  'music chord piano rhythm score guide notes manual chapter section example method answer ' +
  'question reader year week history review report update release version support project ' +
  'design system model process result value number first last new old small large simple'
).split(' ');
const TLDS = ['com', 'org', 'net', 'de', 'fr', 'co.uk', 'io', 'info', 'edu', 'nl'];
const SECTIONS = ['articles', 'blog', 'docs', 'news', 'wiki', 'guides', 'posts', 'reference'];

/** xorshift32 scaled to [0, 1): the same links in every run. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

export function realisticLinks(count: number, domains = 20_000, seed = 26): SentLink[] {
  const next = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const links: SentLink[] = [];
  for (let i = 0; i < count; i++) {
    const domain = Math.floor(next() * domains);
    const host = `${pick(WORDS)}${domain}.${TLDS[domain % TLDS.length] as string}`;
    const slug = `${pick(WORDS)}-${pick(WORDS)}-${pick(WORDS)}-${Math.floor(next() * 100_000)}`;
    links.push({
      url: `https://${host}/${pick(SECTIONS)}/${slug}.html`,
      depth: 1 + Math.floor(next() * 6),
      anchor: words(2 + Math.floor(next() * 3)),
      context: words(16 + Math.floor(next() * 9)),
      isSeed: false,
      parentRelevance: next(),
    });
  }
  return links;
}
