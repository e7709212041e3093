import type { UrlRulesVerdict } from '../../../crawler/protocol/api.ts';

/** The answer to "Would this URL be crawled?" in words, and whether it is a yes. */
export function verdictWords(verdict: UrlRulesVerdict): { crawled: boolean; text: string } {
  switch (verdict.why) {
    case 'seed':
      return { crawled: true, text: 'Crawled: it is a seed, and seeds are always fetched.' };
    case 'admitted':
      return { crawled: true, text: 'Crawled: it is in scope and the rules admit it (robots.txt and the depth limit still apply).' };
    case 'scope':
      return { crawled: false, text: `Refused: out of scope (${verdict.detail}).` };
    case 'rule:exclude':
      return { crawled: false, text: `Refused: excluded by the pattern “${verdict.pattern}”.` };
    case 'rule:not-included':
      return { crawled: false, text: verdict.includes === 1 ? 'Refused: it does not match the include pattern.' : `Refused: not included by any of the ${verdict.includes} include patterns.` };
    case 'invalid-url':
      return { crawled: false, text: `Refused: ${verdict.detail}.` };
    case 'no-seeds':
      return { crawled: false, text: `Cannot tell yet: ${verdict.detail}.` };
  }
}
