/*
 * The refresh benchmark's real site: a Debian documentation package (focus/sites.ts) copied
 * into a temp dir, so that its pages can be edited, and served from there by the private nginx
 * of nginx-sites.ts, which logs what each response cost. nginx sends each file's ETag (its
 * mtime and size; weak once gzipped) and Last-Modified, and answers If-None-Match and
 * If-Modified-Since with a 304.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { BenchSite } from '../focus/sites.ts';
import { startSites, transferLogReader, type TransferTraffic } from './nginx-sites.ts';

export interface DocSite {
  origin: string;
  seed: string;
  /** The HTML file of the copy that a URL of the site serves, or undefined. */
  htmlFileOf(url: string): string | undefined;
  /** Inserts a paragraph before each file's </body> and moves its mtime on, so that its size, ETag and Last-Modified change. */
  edit(files: Iterable<string>): void;
  /** What nginx wrote since the last call. */
  takeTraffic(): Promise<TransferTraffic>;
  close(): Promise<void>;
}

const EDIT_PARAGRAPH =
  '<p>Revised after the first crawl: this paragraph is new in the second version of the page, ' +
  'which is longer than the first and was modified later, so its ETag and its Last-Modified both differ.</p>\n';
/** Set explicitly: an edit within the second of the file's mtime would leave its Last-Modified as it was. */
const EDIT_MTIME_STEP_MS = 60_000;

export async function startDocSite(site: BenchSite): Promise<DocSite> {
  const dir = mkdtempSync(join(tmpdir(), `forager-refresh-${site.key}-`));
  try {
    // nginx's workers drop to an unprivileged user when we run as root.
    chmodSync(dir, 0o755);
    const root = join(dir, 'site');
    // Timestamps kept: the Last-Modified dates are the package's, as on a real server.
    cpSync(site.root(), root, { recursive: true, dereference: true, preserveTimestamps: true });
    const served = await startSites([{ name: site.key, root, entry: site.entry }], { transferLog: true });
    const { origin, seed } = served.sites[0] as { origin: string; seed: string };
    return {
      origin,
      seed,
      htmlFileOf(url: string): string | undefined {
        const parsed = new URL(url);
        if (parsed.origin !== origin) return undefined;
        let path: string;
        try {
          path = decodeURIComponent(parsed.pathname);
        } catch {
          return undefined;
        }
        const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
        if (!file.startsWith(root + sep) || !/\.html?$/i.test(file)) return undefined;
        return statSync(file, { throwIfNoEntry: false })?.isFile() === true ? file : undefined;
      },
      edit(files: Iterable<string>): void {
        for (const file of files) {
          const before = statSync(file);
          // latin1 keeps every byte as it was, whatever the page's encoding.
          const html = readFileSync(file, 'latin1');
          const end = html.toLowerCase().lastIndexOf('</body>');
          const at = end === -1 ? html.length : end;
          writeFileSync(file, html.slice(0, at) + EDIT_PARAGRAPH + html.slice(at), 'latin1');
          utimesSync(file, before.atime, new Date(before.mtimeMs + EDIT_MTIME_STEP_MS));
        }
      },
      takeTraffic: transferLogReader(served.accessLog),
      async close(): Promise<void> {
        await served.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
