/*
 * Which links may leave the app for the user's browser. shell.openExternal hands a URL
 * to the operating system, which would happily run file:, custom-scheme or script URLs,
 * so only plain web addresses pass. No Electron import: unit-tested in Node.
 */
const MAX_EXTERNAL_URL = 8_192;

/** The URL to open in the browser, re-serialised by the URL parser, or undefined to refuse it. */
export function externalLinkTarget(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_EXTERNAL_URL) return undefined;
  const url = URL.parse(raw);
  if (url === null) return undefined;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '') return undefined;
  // "https://bank.example@evil.example/" reads as one host and goes to another.
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href;
}
