import { simhashFromInt, type Simhash } from '../relevance/simhash.ts';
import type { Soft404Store } from '../store/soft404-store.ts';

/**
 * Folders probed per host at most: each probe costs a polite turn, and sites with thousands
 * of folders fall back on the nearest probed ancestor (and the root's own probe).
 */
export const FOLDER_PROBES_PER_HOST = 16;
/**
 * A folder is probed when its third page is taken: a probe per folder would add half again
 * to a site of small folders, and the folders that matter (a wiki's articles) hold many.
 */
export const PAGES_BEFORE_FOLDER_PROBE = 3;

/** The folder of a URL's path: up to and including its last '/' ('/' for a page at the root). */
export function folderOf(url: string): string {
  const path = new URL(url).pathname;
  return path.slice(0, path.lastIndexOf('/') + 1) || '/';
}

/**
 * Soft 404s learnt per folder. A host's root probe (hosts.soft404_*) misses a folder that
 * answers 200 for any name (a wiki's /wiki/, a catalogue's /item/): the third page taken from
 * such a folder first costs a probe of a random sibling name there, and the folder's answer
 * is what its pages are compared with. Folders below the cap's worth use their nearest probed
 * ancestor, then the host's root probe.
 */
export class Soft404Folders {
  readonly #store: Soft404Store;
  /** host id → folder → the folder's signature (null: it answers a real 404). */
  readonly #folders = new Map<number, Map<string, Simhash | null>>();
  /** host id → folder → pages taken from it this run, while it is not probed. */
  readonly #taken = new Map<number, Map<string, number>>();

  constructor(store: Soft404Store) {
    this.#store = store;
    for (const row of store.all()) this.#hostFolders(row.hostId).set(row.folder, row.simhash === null ? null : simhashFromInt(row.simhash));
  }

  /**
   * A page of the URL's folder is taken: the folder to probe before it is fetched, or
   * undefined when its folder is known, is the root, has had fewer pages taken than
   * PAGES_BEFORE_FOLDER_PROBE, or the host's probes are spent. A page put back for the probe
   * is counted again when taken again, which changes nothing: the folder is known by then.
   */
  folderToProbe(hostId: number, url: string): string | undefined {
    const folders = this.#hostFolders(hostId);
    // Asked at every page's turn: a host whose probes are spent costs no URL parse.
    if (folders.size >= FOLDER_PROBES_PER_HOST) return undefined;
    const folder = folderOf(url);
    if (folder === '/' || folders.has(folder)) return undefined;
    let taken = this.#taken.get(hostId);
    if (taken === undefined) {
      taken = new Map();
      this.#taken.set(hostId, taken);
    }
    const count = (taken.get(folder) ?? 0) + 1;
    taken.set(folder, count);
    return count >= PAGES_BEFORE_FOLDER_PROBE ? folder : undefined;
  }

  /** Stores a folder's probe. */
  learnt(hostId: number, folder: string, signature: Simhash | null, simhashInt: bigint | null): void {
    this.#hostFolders(hostId).set(folder, signature);
    this.#taken.get(hostId)?.delete(folder);
    this.#store.save(hostId, folder, simhashInt, Date.now());
  }

  /**
   * The soft-404 signature a page at `url` is compared with: its folder's or its nearest probed
   * ancestor's (null when that folder answers a real 404), else the host root's (`rootSignature`).
   */
  signatureFor(hostId: number, url: string, rootSignature: Simhash | null): Simhash | null {
    const folders = this.#folders.get(hostId);
    if (folders === undefined) return rootSignature;
    for (let folder = folderOf(url); folder.length > 1; folder = folder.slice(0, folder.lastIndexOf('/', folder.length - 2) + 1)) {
      // A probed folder's own answer stands, a real 404 included.
      if (folders.has(folder)) return folders.get(folder) ?? null;
    }
    return rootSignature;
  }

  #hostFolders(hostId: number): Map<string, Simhash | null> {
    let folders = this.#folders.get(hostId);
    if (folders === undefined) {
      folders = new Map();
      this.#folders.set(hostId, folders);
    }
    return folders;
  }
}
