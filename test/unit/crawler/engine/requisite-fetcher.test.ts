import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { RequisiteFetcher } from '../../../../crawler/engine/requisite-fetcher.ts';
import type { SubresourceFetcher } from '../../../../crawler/render/page-renderer.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { RenderStore } from '../../../../crawler/store/render-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'forager-requisites-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SITE = 'https://example.org';

/** A site's subresources as the subresource fetcher would answer them: a stylesheet that refers to an image, a script, a missing icon. */
const RESPONSES: Record<string, { status: number; type: string; body: string }> = {
  [`${SITE}/site.css`]: { status: 200, type: 'text/css', body: 'body { background: url(bg.png) }' },
  [`${SITE}/bg.png`]: { status: 200, type: 'image/png', body: 'png' },
  [`${SITE}/app.js`]: { status: 200, type: 'text/javascript', body: 'js' },
  [`${SITE}/icon.ico`]: { status: 404, type: 'text/html', body: 'missing' },
};

it('records a shared requisite for every page, asking for it once while the run remembers it stored', async () => {
  const db = openCollection(join(dir, 'c.forager'), { create: true });
  const asked: string[] = [];
  const fetch: SubresourceFetcher = async (url) => {
    asked.push(url);
    const r = RESPONSES[url];
    if (r === undefined) return { kind: 'blocked', reason: 'not-found' };
    return { kind: 'response', fromCache: false, response: { status: r.status, headers: { 'content-type': r.type }, body: Buffer.from(r.body) } };
  };
  const requisites = new RequisiteFetcher(fetch, new RenderStore(db), 'same-host', new AbortController().signal);
  const hrefs = ['/site.css', '/app.js', '/icon.ico'];
  for (const seq of [1, 2, 3]) await requisites.fetchFor(seq, `${SITE}/page${seq}.html`, { hrefs, pageUrl: `${SITE}/page${seq}.html`, baseHref: undefined });
  const recorded = (seq: number): string[] => db.prepare('SELECT url FROM requisites WHERE page_seq = ? ORDER BY url').pluck().all(seq) as string[];
  for (const seq of [1, 2, 3]) assert.deepEqual(recorded(seq), [`${SITE}/app.js`, `${SITE}/bg.png`, `${SITE}/site.css`], `page ${seq}`);
  assert.deepEqual(asked.filter((url) => url !== `${SITE}/icon.ico`), [`${SITE}/site.css`, `${SITE}/bg.png`, `${SITE}/app.js`], 'each stored requisite asked for once');
  assert.equal(asked.filter((url) => url === `${SITE}/icon.ico`).length, 3, 'one that was not stored is asked for again');
  db.close();
});
