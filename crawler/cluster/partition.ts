import { getDomain } from 'tldts';
import { PARTITIONS } from '../store/shard-names.ts';

/*
 * A cluster's crawl is cut into a fixed number of virtual partitions, each crawled into a
 * shard of its own by the one worker that leases it. A URL's partition is a hash of its
 * registrable domain, or of its host (with the port) where there is none (an IP address,
 * localhost): every URL of a host, and of a site's subdomains, lands in one partition, so
 * politeness, robots.txt and the seen set stay per shard. The number never changes during a
 * crawl, so a worker joining or leaving moves partitions, never URLs. The count and a shard's
 * file name are in store/shard-names.ts, which `forager merge` reads too.
 */

/** FNV-1a over the text, as an unsigned 32-bit number. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** What a URL's partition is a hash of: its registrable domain, else its host and port. */
export function partitionKeyOf(url: URL): string {
  return getDomain(url.hostname, { allowPrivateDomains: true }) ?? url.host;
}

export function partitionOf(url: string | URL): number {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return fnv1a(partitionKeyOf(parsed)) % PARTITIONS;
}

/** The reason a shard stores for a URL another partition owns. */
export function partitionReason(partition: number): string {
  return `partition:${partition}`;
}

/**
 * Partitions by origin, remembered: a shard asks for every link on its pages, and a page's
 * links name few origins.
 */
export class PartitionMap {
  readonly #byOrigin = new Map<string, number>();

  of(url: string): number {
    const origin = originOf(url);
    let partition = this.#byOrigin.get(origin);
    if (partition === undefined) {
      partition = partitionOf(url);
      // A crawl of millions of hosts must not keep one entry per host it ever linked to.
      if (this.#byOrigin.size >= 65_536) this.#byOrigin.clear();
      this.#byOrigin.set(origin, partition);
    }
    return partition;
  }
}

/** The origin of a canonical URL (scheme://authority). */
function originOf(url: string): string {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1 ? url : url.slice(0, slash);
}
