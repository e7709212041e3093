import type { Handler } from './test-site.ts';

/*
 * A small web site with one topic worth finding (write-ahead logging) among others, for
 * end-to-end tests of the app. Pages are generated from their number, so the site is the
 * same on every run. The page /db/wal-0 carries a script, a remote image, a preconnect
 * hint and a meta refresh aimed at `canaryOrigin`: the offline viewer must neutralise all
 * of them (the canary server counts any request that gets through). Give the canary another
 * host name than the site (localhost against 127.0.0.1), so that the crawl's scope keeps the
 * crawler itself away from it.
 */

export const TOPIC_QUERY = 'write-ahead logging and checkpoints';
export const SCRIPTED_PATH = '/db/wal-0';
export const SCRIPT_MARKER = 'forager-script-ran';

const SECTIONS = [
  { dir: 'db', topical: true, words: ['write-ahead log', 'checkpoint', 'WAL segment', 'fsync', 'recovery', 'redo log'] },
  { dir: 'garden', topical: false, words: ['tomato', 'compost', 'pruning', 'seedling', 'mulch', 'irrigation'] },
  { dir: 'travel', topical: false, words: ['railway', 'ferry', 'itinerary', 'hostel', 'passport', 'luggage'] },
  { dir: 'cooking', topical: false, words: ['sourdough', 'braise', 'stock', 'knife', 'oven', 'spice'] },
] as const;

const PAGES_PER_SECTION = 30;

function words(seed: number, pool: readonly string[], count: number): string {
  const out: string[] = [];
  let x = seed * 2654435761 >>> 0;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(pool[x % pool.length] as string);
  }
  return out.join(' ');
}

function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

function sectionPage(section: (typeof SECTIONS)[number], n: number, canaryOrigin: string): string {
  const title = section.topical ? `WAL and checkpoints, part ${n}` : `${section.dir} notes ${n}`;
  const text = `<p>${words(n + section.dir.length, section.words, 60)}</p><p>${words(n * 7, section.words, 40)}</p>`;
  const next = [1, 2, 3].map((k) => (n + k) % PAGES_PER_SECTION).map((m) => `<li><a href="/${section.dir}/${section.topical ? 'wal' : 'p'}-${m}">${section.topical ? 'Checkpoint tuning and the write-ahead log' : `${section.dir} page`} ${m}</a></li>`);
  const cross = SECTIONS.filter((s) => s !== section).map((s) => `<li><a href="/${s.dir}/${s.topical ? 'wal' : 'p'}-${n}">${s.dir}</a></li>`);
  const external = '<p><a href="https://example.org/elsewhere">A page elsewhere on the web</a></p>';
  if (section.topical && n === 0) {
    const head = `<link rel="preconnect" href="${canaryOrigin}"><meta http-equiv="refresh" content="30;url=${canaryOrigin}/refresh">`;
    const hostile = `<script>document.title='${SCRIPT_MARKER}';document.body.setAttribute('data-marker','${SCRIPT_MARKER}');fetch('${canaryOrigin}/beacon');</script>
      <img src="${canaryOrigin}/pixel.png" alt="a remote pixel" onerror="document.title='${SCRIPT_MARKER}'">`;
    return page(title, `<h1>${title}</h1>${hostile}${text}<ul>${next.join('')}${cross.join('')}</ul>${external}`, head);
  }
  return page(title, `<h1>${title}</h1>${text}<ul>${next.join('')}${cross.join('')}</ul>${external}`);
}

/** The site's handler; `canaryOrigin` is where hostile pages try to send requests. */
export function topicSite(canaryOrigin: string, delayMs = 0): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const reply = (status: number, body: string): void => {
      const send = (): void => {
        res.writeHead(status, { 'content-type': status === 200 ? 'text/html; charset=utf-8' : 'text/plain' }).end(body);
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    };
    if (path === '/robots.txt') return reply(200, 'User-agent: *\nDisallow: /private/\n');
    if (path === '/') {
      const links = SECTIONS.map((s) => `<li><a href="/${s.dir}/${s.topical ? 'wal' : 'p'}-0">${s.topical ? 'Databases: write-ahead logging' : s.dir}</a></li>`).join('');
      return reply(200, page('A site of many topics', `<h1>Sections</h1><ul>${links}<li><a href="/private/x">private</a></li></ul>`));
    }
    const match = /^\/(\w+)\/(?:wal|p)-(\d+)$/.exec(path);
    const section = SECTIONS.find((s) => s.dir === match?.[1]);
    const n = Number(match?.[2]);
    if (section === undefined || !(n >= 0 && n < PAGES_PER_SECTION)) return reply(404, 'not found');
    return reply(200, sectionPage(section, n, canaryOrigin));
  };
}

export const TOPIC_SITE_PAGES = SECTIONS.length * PAGES_PER_SECTION + 1;
