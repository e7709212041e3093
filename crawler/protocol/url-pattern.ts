/*
 * Reading one include or exclude pattern (settings.include, settings.exclude): which kind it
 * is, and why it cannot be used. Pure, so the New crawl form says at once what the service
 * and the crawler would refuse; crawler/url/url-rules.ts compiles what this accepts.
 *
 * - `/source/flags` is a regular expression, searched for anywhere in the canonical URL
 *   (anchor it with ^ and $ to match the whole URL). Flags: i, m, s, u, v; g and y would make
 *   a test depend on the one before.
 * - Anything else is a glob over the whole canonical URL (picomatch: `*` within a path
 *   segment, `**` across segments, `?`, `[…]`, `{a,b}`), so it starts with the scheme or a
 *   wildcard: `https://example.org/docs/**`, `**\/*.zip`.
 */
import { NEW_CRAWL_INPUT_BOUNDS } from './settings.ts';

export type UrlPatternReading =
  | { ok: true; kind: 'glob'; glob: string }
  | { ok: true; kind: 'regex'; source: string; flags: string }
  | { ok: false; why: string };

const REGEX_FORM = /^\/(.+)\/([a-z]*)$/s;
const ALLOWED_FLAGS = 'imsuv';
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/;
const SCHEMES = ['http://', 'https://'];

/** One pattern as given: a glob or a regular expression, or why it is neither. */
export function readUrlPattern(pattern: string): UrlPatternReading {
  const { patternLength } = NEW_CRAWL_INPUT_BOUNDS;
  if (pattern.trim() === '') return { ok: false, why: 'it is empty' };
  if (pattern.length > patternLength) return { ok: false, why: `it is longer than ${patternLength} characters` };
  if (CONTROL.test(pattern)) return { ok: false, why: 'it holds a control character' };
  if (pattern.trim() !== pattern) return { ok: false, why: 'it has spaces around it' };
  const regex = REGEX_FORM.exec(pattern);
  if (regex !== null) return readRegex(regex[1] as string, regex[2] as string);
  return readGlob(pattern);
}

function readRegex(source: string, flags: string): UrlPatternReading {
  for (const [i, flag] of [...flags].entries()) {
    if (!ALLOWED_FLAGS.includes(flag)) return { ok: false, why: `the flag ${flag} is not one a rule takes (${[...ALLOWED_FLAGS].join(', ')})` };
    if (flags.indexOf(flag) !== i) return { ok: false, why: `the flag ${flag} is given twice` };
  }
  if (flags.includes('u') && flags.includes('v')) return { ok: false, why: 'the flags u and v cannot be used together' };
  try {
    new RegExp(source, flags);
  } catch (err) {
    return { ok: false, why: `it is not a valid regular expression (${err instanceof Error ? err.message : String(err)})` };
  }
  return { ok: true, kind: 'regex', source, flags };
}

function readGlob(glob: string): UrlPatternReading {
  if (glob.startsWith('/')) {
    return { ok: false, why: 'a glob is matched against the whole URL (https://…), so it cannot start with /: write **/… for any site, or /…/ for a regular expression' };
  }
  if (/\s/.test(glob)) return { ok: false, why: 'it holds a space, which a URL never does (write %20)' };
  // The text before the first wildcard must be able to begin a canonical URL.
  const special = glob.search(GLOB_SPECIAL);
  const literal = special === -1 ? glob : glob.slice(0, special);
  const scheme = SCHEMES.find((s) => literal.startsWith(s) || s.startsWith(literal));
  if (scheme === undefined) {
    return { ok: false, why: 'a glob is matched against the whole URL, so it starts with http://, https:// or a wildcard (e.g. **/docs/**)' };
  }
  const host = literal.slice(scheme.length).split('/')[0] ?? '';
  if (literal.length > scheme.length && host !== host.toLowerCase()) {
    return { ok: false, why: 'host names are matched in lower case, as URLs are stored' };
  }
  return { ok: true, kind: 'glob', glob };
}
