/*
 * Rules every web contents of the app gets as it is created: navigation only within the
 * app (and stored pages in frames), no webviews, no new windows. A web link becomes a
 * question to the user and, if confirmed, a visit in their own browser.
 */
import { BrowserWindow, app, dialog, shell } from 'electron';
import type { WebContents } from 'electron';
import { externalLinkTarget } from '../shared/external-links.ts';
import { mayNavigate } from './navigation-policy.ts';

export function guardWebContents(): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => {
      if (!mayNavigate(event.url, true)) event.preventDefault();
    });
    contents.on('will-frame-navigate', (event) => {
      if (!event.isMainFrame && !mayNavigate(event.url, false)) event.preventDefault();
    });
    contents.on('will-redirect', (event) => {
      if (!mayNavigate(event.url, event.isMainFrame)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const target = externalLinkTarget(url);
      if (target !== undefined) {
        offerInBrowser(contents, target).catch((error: unknown) => console.error('forager: could not open a link', error));
      }
      return { action: 'deny' };
    });
  });
}

async function offerInBrowser(contents: WebContents, url: string): Promise<void> {
  const options = {
    type: 'question' as const,
    buttons: ['Open in browser', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    message: 'Open this link in your browser?',
    detail: url,
  };
  const owner = BrowserWindow.fromWebContents(contents);
  const { response } = owner === null ? await dialog.showMessageBox(options) : await dialog.showMessageBox(owner, options);
  if (response !== 0) return;
  // Checked again on the string actually handed to the operating system.
  const checked = externalLinkTarget(url);
  if (checked !== undefined) await shell.openExternal(checked);
}
