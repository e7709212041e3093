/**
 * Words of a URL's host and path, as evidence for ordering (Cho et al.: URLs that contain
 * the topic's words; Aggarwal et al.: URL tokens as predictors). Punycode hosts become
 * Unicode and the path is percent-decoded, so words in any script survive. Words split at
 * punctuation and at camelCase, letter-digit and digit-letter boundaries
 * (getXMLResponse2xx → get, xml, response, 2, xx), then are lowercased. The query is not
 * used: its words are mostly parameter names and ids.
 */
import { domainToUnicode } from 'node:url';

const DROPPED = new Set(['www', 'http', 'https', 'html', 'htm', 'php', 'index']);

// Runs of letters, digits and combining marks: everything else separates words.
const CHUNK = /[\p{L}\p{N}\p{M}]+/gu;
// Within a chunk: an acronym before a capitalised word, a (capitalised) lowercase word,
// an acronym, a number, or letters without case (CJK, Arabic...).
const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}[\p{Lu}\p{M}]*|\p{N}+|[\p{Lo}\p{Lt}\p{Lm}\p{M}]+/gu;

export function urlTokens(url: URL | string): string[] {
  const u = typeof url === 'string' ? URL.parse(url) : url;
  if (u === null) return [];
  const tokens: string[] = [];
  const host = u.hostname.includes('xn--') ? domainToUnicode(u.hostname) : u.hostname;
  addWords(host, tokens);
  addWords(decodePath(u.pathname), tokens);
  return tokens;
}

function addWords(text: string, into: string[]): void {
  for (const chunk of text.match(CHUNK) ?? []) {
    for (const word of chunk.match(WORD) ?? []) {
      const lower = word.toLowerCase();
      if (!DROPPED.has(lower)) into.push(lower);
    }
  }
}

function decodePath(path: string): string {
  if (path.indexOf('%') === -1) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    // Malformed escapes (not UTF-8, stray '%'): drop them rather than lose the whole path.
    return path.replace(/%[0-9A-Fa-f]{2}/g, ' ');
  }
}
