import { readFileSync } from 'node:fs';
import { descendantPids } from '../../crawler/render/browser-memory.ts';
import { respond, type Handler } from './test-site.ts';

/**
 * Routes of a site of three pages built by one script: the home page's script fetches
 * /api/home, whose links lead to /p/1 and /p/2, whose script fetches /api/1 and /api/2. The
 * pages' text names the site; the API answers after `apiDelayMs`.
 */
export function scriptSite(name: string, apiDelayMs = 0): Record<string, Handler> {
  const shell = '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>';
  const routes: Record<string, Handler> = {
    '/app.js': respond('text/javascript', "fetch('/api/' + (location.pathname === '/' ? 'home' : location.pathname.slice(3))).then((r) => r.json()).then((d) => { document.getElementById('root').innerHTML = '<p>' + d.text + '</p>' + d.links.map((l) => '<a href=\"' + l + '\">' + l + '</a>').join(' '); });"),
  };
  for (const [page, path, links] of [['home', '/', ['/p/1', '/p/2']], ['1', '/p/1', []], ['2', '/p/2', []]] as const) {
    routes[path] = respond('text/html', shell);
    const body = JSON.stringify({ text: `${name} checkpoint journal page ${page}`, links });
    routes[`/api/${page}`] = (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), apiDelayMs);
  }
  return routes;
}

/**
 * The render processes (crawler/render/render-host.ts) that process `pid` started, now: its
 * children only, since a process the render process forks (the browser) bears its command
 * line until it execs.
 */
export function renderHostPids(pid: number = process.pid): number[] {
  return (descendantPids(pid) ?? []).filter((child) => {
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return parent === pid && readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('render-host');
    } catch {
      return false;
    }
  });
}
