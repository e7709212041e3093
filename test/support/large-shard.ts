import { constants, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { shardTemplate } from '../../crawler/cluster/shard-template.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { HostStore } from '../../crawler/store/host-store.ts';
import { PageStore } from '../../crawler/store/page-store.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { shardFileName } from '../../crawler/store/shard-names.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { UrlStore } from '../../crawler/store/url-store.ts';
import { fingerprint } from '../../crawler/url/fingerprint.ts';

/*
 * A shard with a long history, written straight through the stores (crawling it would take
 * minutes): `pages` fetched pages spread over `hosts` hosts, each linking `linksPerPage` new
 * URLs of the same hosts, which wait queued. What an open replays: every page with its
 * links, then every queued URL onto its host.
 */

export interface LargeShard {
  path: string;
  pages: number;
  links: number;
  queued: number;
}

export interface LargeShardOptions {
  pages: number;
  linksPerPage: number;
  hosts: number;
  /** The origin of host i; by default http://h<i>.shard.test. */
  originOf?: (i: number) => string;
}

const WORDS = ['write', 'ahead', 'log', 'checkpoint', 'recovery', 'page', 'index', 'btree', 'lock', 'latch', 'buffer', 'pool'];

export function buildLargeShard(dir: string, partition: number, settings: CrawlSettings, options: LargeShardOptions): LargeShard {
  const path = join(dir, shardFileName(partition));
  copyFileSync(shardTemplate(), path, constants.COPYFILE_EXCL);
  const db = openCollection(path, { create: false });
  const originOf = options.originOf ?? ((i: number) => `http://h${i}.shard.test`);
  try {
    saveSettings(db, settings);
    const urls = new UrlStore(db);
    const hosts = new HostStore(db);
    const pages = new PageStore(db);
    const store = (url: string, state: typeof UrlState.queued | typeof UrlState.fetched, depth: number, parentId: number | null): number => {
      const origin = url.slice(0, url.indexOf('/', url.indexOf('//') + 2));
      return urls.insert({ fp: fingerprint(url), url, hostId: hosts.idFor(origin), depth, state, parentId, redirects: 0, reason: null, kind: 'page' });
    };
    const now = Date.now();
    db.transaction(() => {
      for (let p = 0; p < options.pages; p++) {
        const origin = originOf(p % options.hosts);
        const urlId = store(`${origin}/page/${p}`, UrlState.fetched, 1, null);
        const words = Array.from({ length: 8 }, (_, k) => WORDS[(p + k * 5) % WORDS.length]).join(' ');
        const seq = pages.insert({
          urlId, status: 200, httpVersion: '1.1', statusText: 'OK', headers: [['content-type', 'text/html']], contentType: 'text/html', charset: 'utf-8',
          body: null, bodyBytes: 0, wireBytes: 0, title: `Page ${p}`, text: words, terms: words, relevance: (p % 100) / 100, hot: p % 10 === 0, judgedHot: p % 10 === 0,
          noindex: false, nofollow: false, canonical: null, redirectTo: null, note: null, startedAt: now, fetchedAt: now, responseMs: 5, remoteAddress: null,
          requestHead: null, payload: null, simhash: null, bodyHash: null, duplicateOf: null, soft404: false,
        });
        for (let l = 0; l < options.linksPerPage; l++) {
          const dstId = store(`${origin}/page/${p}/link/${l}`, UrlState.queued, 2, urlId);
          pages.insertLink(seq, { dstId, anchor: `${WORDS[l % WORDS.length]} ${l}`, contextBefore: 'see the', contextAfter: 'for more' });
        }
      }
    })();
  } finally {
    db.close();
  }
  const links = options.pages * options.linksPerPage;
  return { path, pages: options.pages, links, queued: links };
}
