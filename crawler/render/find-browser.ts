import { accessSync, constants } from 'node:fs';

/**
 * Where Chromium-family browsers live on the systems Forager runs on, best first: the
 * headless shell is smaller and quicker to start than a full browser.
 */
const CANDIDATES: Record<string, string[]> = {
  linux: ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/usr/bin/microsoft-edge', '/snap/bin/chromium'],
  darwin: ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', '/Applications/Chromium.app/Contents/MacOS/Chromium', '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge'],
  win32: ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe'],
};

export type BrowserLookup = { kind: 'found'; path: string } | { kind: 'missing'; message: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser named in settings (which must exist), or the first one found on the system. */
export function findBrowser(configured: string, platform: string = process.platform): BrowserLookup {
  if (configured !== '') {
    return executable(configured) ? { kind: 'found', path: configured } : { kind: 'missing', message: `the browser ${configured} (--browser) is not an executable file` };
  }
  const found = (CANDIDATES[platform] ?? []).find(executable);
  if (found !== undefined) return { kind: 'found', path: found };
  return { kind: 'missing', message: 'no Chromium-family browser was found on this system (install chromium, or name one with --browser)' };
}
