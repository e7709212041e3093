import type { UrlPatternProblem, UrlRulesCheck, UrlRulesCheckInput, UrlRulesVerdict } from '../protocol/api.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import { createScope } from '../url/scope.ts';
import { urlPatternProblem, UrlRules, type RuleList, type RuleVerdict } from '../url/url-rules.ts';
import { gateRefusal } from './url-admission.ts';

/**
 * The New crawl form's live check: which patterns the crawl would refuse, and what it would
 * do with one URL found on a page. The verdict comes from the admission's own gate
 * (gateRefusal: scope, then the rules) over the same canonical form; seeds are always
 * fetched. Seeds that are not URLs yet (the form is being typed) are left out.
 */
export function checkUrlRules(input: UrlRulesCheckInput): UrlRulesCheck {
  const problems = [...listProblems('include', input.include), ...listProblems('exclude', input.exclude)];
  const raw = input.url.trim();
  if (raw === '' || problems.length > 0) return { problems, verdict: null };
  return { problems, verdict: verdictOf(input, raw) };
}

function listProblems(list: RuleList, patterns: readonly string[]): UrlPatternProblem[] {
  return patterns.flatMap((pattern) => {
    const why = urlPatternProblem(list, pattern);
    return why === null ? [] : [{ list, pattern, why }];
  });
}

function verdictOf(input: UrlRulesCheckInput, raw: string): UrlRulesVerdict {
  const canon = tryCanonicalize(raw);
  if (!canon.ok) return { crawled: false, url: raw, why: 'invalid-url', detail: `not a URL Forager can crawl (${canon.reason})` };
  const url = canon.url;
  const seeds = input.seeds.flatMap((seed) => {
    const canonSeed = tryCanonicalize(seed.trim());
    return canonSeed.ok ? [canonSeed.url] : [];
  });
  if (seeds.includes(url)) return { crawled: true, url, why: 'seed' };
  if (seeds.length === 0 && input.scope !== 'any') return { crawled: false, url, why: 'no-seeds', detail: 'the scope is judged against the seeds: give one first' };
  const scope = createScope(input.scope, seeds);
  const rules = new UrlRules(input);
  const refusal = gateRefusal(new URL(url), url, scope, rules);
  if (refusal === null) return { crawled: true, url, why: 'admitted' };
  if (refusal === 'scope') return { crawled: false, url, why: 'scope', detail: scope.explain(url).reason };
  // The gate refused by a rule: judge() names it.
  const verdict = rules.judge(url) as Exclude<RuleVerdict, { admitted: true }>;
  return verdict.reason === 'rule:exclude'
    ? { crawled: false, url, why: verdict.reason, pattern: verdict.pattern }
    : { crawled: false, url, why: verdict.reason, includes: verdict.includes };
}
