import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** The directory holding package.json: source and compiled code sit at different depths under it. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'crawler'))) return dir;
    const up = dirname(dir);
    if (up === dir) return dirname(from);
    dir = up;
  }
}

export function rendererDir(): string {
  return join(packageRoot(), 'dist', 'renderer');
}

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/**
 * The built renderer's file for a URL path, or undefined. Paths are decoded and
 * normalised, then must stay inside `root`: no traversal, no dot files.
 */
export function readStaticFile(root: string, urlPath: string): StaticFile | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const path = normalize(join(root, relative));
  if (!path.startsWith(root + sep) || relative.split('/').some((part) => part.startsWith('.'))) return undefined;
  if (!existsSync(path) || !statSync(path).isFile()) return undefined;
  return { body: readFileSync(path), contentType: MIME[extname(path)] ?? 'application/octet-stream' };
}
