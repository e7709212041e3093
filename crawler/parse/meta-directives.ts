import { isSpace } from './html-whitespace.ts';

/** The robots token Forager obeys by default. */
export const DEFAULT_AGENT_TOKEN = 'forager';

export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

export interface MetaRefresh {
  delaySeconds: number;
  /** The target as written (unresolved); absent when the page refreshes itself. */
  url?: string;
}

/** Robots directives that take a value after a colon; anything else before a colon names an agent. */
const VALUED_DIRECTIVES = new Set([
  'unavailable_after',
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
]);

/**
 * Parses a robots meta content or X-Robots-Tag value such as "noindex, nofollow",
 * "none", "all" or "googlebot: noindex". An "agent:" prefix scopes the directives
 * after it (up to the next prefix) to that agent: they apply only when the agent
 * is agentToken (case-insensitive). Unknown directives are ignored. Call it once
 * per header line where possible: a joined "a: x, y" cannot tell whether y was
 * a separate unprefixed line.
 */
export function parseRobotsDirectives(value: string, agentToken: string = DEFAULT_AGENT_TOKEN): RobotsDirectives {
  const result: RobotsDirectives = { noindex: false, nofollow: false };
  const token = agentToken.toLowerCase();
  let applies = true;
  for (const part of value.split(',')) {
    let directives = part.trim();
    const colon = directives.indexOf(':');
    if (colon !== -1) {
      const prefix = directives.slice(0, colon).trim().toLowerCase();
      if (VALUED_DIRECTIVES.has(prefix) || /\s/.test(prefix)) continue;
      applies = prefix === token;
      directives = directives.slice(colon + 1);
    }
    if (!applies) continue;
    for (const word of directives.toLowerCase().split(/\s+/)) {
      if (word === 'noindex') result.noindex = true;
      else if (word === 'nofollow') result.nofollow = true;
      else if (word === 'none') {
        result.noindex = true;
        result.nofollow = true;
      }
    }
  }
  return result;
}

/**
 * Parses a meta refresh content such as "5; url='/next'" after the WHATWG
 * declarative refresh steps. Undefined when it does not start with a delay.
 */
export function parseMetaRefresh(content: string): MetaRefresh | undefined {
  const n = content.length;
  let i = 0;
  while (i < n && isSpace(content.charCodeAt(i))) i++;
  const digitsStart = i;
  while (i < n && content.charCodeAt(i) >= 0x30 && content.charCodeAt(i) <= 0x39) i++;
  if (i === digitsStart && content.charCodeAt(i) !== 0x2e) return undefined;
  const delaySeconds = i === digitsStart ? 0 : Number(content.slice(digitsStart, i));
  while (i < n && ((content.charCodeAt(i) >= 0x30 && content.charCodeAt(i) <= 0x39) || content.charCodeAt(i) === 0x2e)) i++;
  if (i < n) {
    const c = content.charCodeAt(i);
    if (c !== 0x3b && c !== 0x2c && !isSpace(c)) return undefined;
    while (i < n && isSpace(content.charCodeAt(i))) i++;
    if (content.charCodeAt(i) === 0x3b || content.charCodeAt(i) === 0x2c) i++;
    while (i < n && isSpace(content.charCodeAt(i))) i++;
  }
  let rest = content.slice(i);
  const urlPrefix = /^url\s*=\s*/i.exec(rest);
  if (urlPrefix !== null) rest = rest.slice(urlPrefix[0].length);
  const quote = rest.charCodeAt(0);
  if (quote === 0x22 || quote === 0x27) {
    const close = rest.indexOf(rest[0] as string, 1);
    rest = close === -1 ? rest.slice(1) : rest.slice(1, close);
  }
  const url = rest.trim();
  return url === '' ? { delaySeconds } : { delaySeconds, url };
}
