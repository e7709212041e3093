import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// Paths are relative to this file, so the build works from any working directory.
const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/**
 * PDF.js's standard fonts and CMaps as the app's own files under pdfjs/: the PDF viewer
 * (src/pdf/pdf-document.ts) reads them from there, so showing a PDF fetches nothing else.
 */
function pdfjsData(): Plugin {
  const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return {
    name: 'forager-pdfjs-data',
    apply: 'build',
    generateBundle() {
      for (const folder of ['standard_fonts', 'cmaps']) {
        for (const name of readdirSync(join(root, folder))) {
          this.emitFile({ type: 'asset', fileName: `pdfjs/${folder}/${name}`, source: readFileSync(join(root, folder, name)) });
        }
      }
    },
  };
}

export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [react(), pdfjsData()],
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    // Every browser Forager runs in supports modulepreload; the CSP allows no inline script.
    modulePreload: { polyfill: false },
  },
});
