/**
 * The web of bench:documents' crawl part: an HTML site on loopback where one URL in ten is a
 * PDF. Page N (/p/N.html) holds about 400 words and links nine other pages; every ninth page
 * also links a PDF of its own (/d/N.pdf). The PDFs are real ones from Debian's manuals, served
 * in turn, so the crawl reads documents of the size a crawl meets (a few to sixty pages).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const WORDS = ['checkpoint', 'write-ahead', 'log', 'segment', 'recovery', 'buffer', 'page', 'transaction', 'commit', 'replica', 'index', 'vacuum', 'lock', 'snapshot', 'archive', 'restore'];

function words(seed: number, count: number): string {
  let x = (seed * 2654435761) >>> 0;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length] as string);
  }
  return out.join(' ');
}

/** Every ninth page links a PDF: with its nine page links, one URL in ten of the site is a PDF. */
function hasPdf(n: number): boolean {
  return n % 9 === 0;
}

/** The PDFs the site links, in the order of the pages that link them: which of `pdfs` each is. */
export function pdfsOfSite(pages: number, pdfCount: number): number[] {
  return Array.from({ length: pages }, (_, n) => n).filter(hasPdf).map((n) => n % pdfCount);
}

function pageHtml(n: number, pages: number): string {
  const links = Array.from({ length: 9 }, (_, k) => {
    const target = (n * 7 + k * 13 + 1) % pages;
    return `<li><a href="/p/${target}.html">${words(target, 4)}</a></li>`;
  }).join('');
  const pdf = hasPdf(n) ? `<li><a href="/d/${n}.pdf">report ${n}: ${words(n * 17, 3)} (PDF)</a></li>` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>Notes ${n}: ${words(n, 3)}</title></head><body><h1>${words(n, 5)}</h1><p>${words(n * 31, 400)}</p><ul>${links}${pdf}</ul></body></html>`;
}

export interface DocumentWeb {
  origin: string;
  /** URLs in the site: its pages and their PDFs. */
  urls: number;
  close(): Promise<void>;
}

export async function startDocumentWeb(pages: number, pdfs: readonly Buffer[]): Promise<DocumentWeb> {
  const html = Array.from({ length: pages }, (_, n) => Buffer.from(pageHtml(n, pages)));
  const server: Server = createServer((req, res) => {
    const page = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    const pdf = /^\/d\/(\d+)\.pdf$/.exec(req.url ?? '');
    if (page !== null && Number(page[1]) < pages) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html[Number(page[1])]);
    if (pdf !== null && Number(pdf[1]) < pages && hasPdf(Number(pdf[1]))) return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdfs[Number(pdf[1]) % pdfs.length]);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    urls: pages + pdfsOfSite(pages, 1).length,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
