import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Paths are relative to this file, so the build works from any working directory.
const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [react()],
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    // Every browser Forager runs in supports modulepreload; the CSP allows no inline script.
    modulePreload: { polyfill: false },
  },
});
