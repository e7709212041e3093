import { randomBytes } from 'node:crypto';
import type { FetchResult } from '../net/fetch-page.ts';
import type { ResponseReader } from '../parse/response-reader.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { simhashToInt, type Simhash } from '../relevance/simhash.ts';
import { productToken } from '../robots/index.ts';
import type { HostStore } from '../store/host-store.ts';
import { storeErrorOf } from '../store/store-error.ts';
import type { HostState } from './host-state.ts';
import type { Soft404Folders } from './soft404-folders.ts';

export interface Soft404ProbeDeps {
  settings: Pick<CrawlSettings, 'userAgent' | 'maxDecodedBytes'>;
  parser: ResponseReader;
  hosts: HostStore;
  folders: Soft404Folders;
  /** Why robots.txt or the include and exclude rules refuse the URL, or null. */
  refusal(host: HostState, url: string): string | null;
  /** The request, in a request slot, cancelled with the crawl. */
  fetch(url: string): Promise<FetchResult>;
  /** Aborted when the crawl's requests are cancelled. */
  signal: AbortSignal;
}

/**
 * Asks a host for a name that cannot exist, at its root or in a folder: a 200 answer is the
 * soft 404 that later pages there are compared with; a 404 (or a refusal by robots.txt, or a
 * failure) leaves them without one.
 */
export class Soft404Probe {
  readonly #deps: Soft404ProbeDeps;

  constructor(deps: Soft404ProbeDeps) {
    this.#deps = deps;
  }

  /** One request, its turn like a page's, at the host's root or in `folder`. Returns the response time. */
  async probe(host: HostState, folder = '/'): Promise<number> {
    const d = this.#deps;
    const started = Date.now();
    const url = `${host.origin}${folder}forager-probe-${randomBytes(8).toString('hex')}`;
    let signature: Simhash | null = null;
    // A probe obeys robots.txt and the include and exclude rules as a page would; without one the host has no soft-404 signature.
    if (d.refusal(host, url) === null) {
      try {
        const result = await d.fetch(url);
        if (result.status === 200) {
          const analysis = await d.parser.analyse({
            url, status: 200, contentType: result.headers['content-type'], xRobotsTag: undefined, body: result.body,
            agentToken: productToken(d.settings.userAgent), maxLinks: 0, kind: 'page', maxDecodedBytes: d.settings.maxDecodedBytes, documents: [],
          });
          signature = analysis.simhash;
        }
      } catch (err) {
        // A probe that fails says nothing about the host's pages; only the store's own errors matter.
        if (storeErrorOf(err) !== undefined) throw err;
        // Cut short by a stop: the host is asked again next run.
        if (d.signal.aborted) return Date.now() - started;
      }
    }
    const signatureInt = signature === null ? null : simhashToInt(signature);
    if (folder !== '/') d.folders.learnt(host.id, folder, signature, signatureInt);
    else {
      host.soft404 = signature;
      d.hosts.saveSoft404(host.id, signatureInt);
    }
    return Date.now() - started;
  }
}
