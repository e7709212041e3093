/*
 * The crawl's include and exclude rules (settings.include, settings.exclude), compiled once.
 *
 * What a pattern sees is the URL in canonical form (canonical.ts: lower-case scheme and host,
 * no default port, no fragment, dot segments resolved), e.g. `https://example.org/a/b.zip?x=1`.
 * - A glob (picomatch, with dotfiles matched and no negation) must match the whole canonical
 *   URL, or the URL without its query string: `**\/*.zip` matches `https://h/a/b.zip` and
 *   `https://h/a/b.zip?x=1`, `https://h/search?q=*` matches with the query. `*` stays within
 *   one path segment; `**` crosses them (and the `//` after the scheme), so `**` at the start
 *   stands for any scheme and host. Globs are case-sensitive, as paths are.
 * - A /regular expression/ is searched for anywhere in the whole canonical URL, query
 *   included; anchor it with ^ and $ to match all of it.
 * A URL is refused with `rule:exclude` when it matches an exclude, else with
 * `rule:not-included` when there are includes and it matches none.
 *
 * Per URL, each list is one test of one regular expression made of all its globs, then one
 * per regular expression; which pattern matched is only looked for to explain a refusal.
 */
import picomatch from 'picomatch';
import { UsageError } from '../errors.ts';
import { NEW_CRAWL_INPUT_BOUNDS } from '../protocol/settings.ts';
import { readUrlPattern } from '../protocol/url-pattern.ts';

export type RuleList = 'include' | 'exclude';
export type RuleRefusal = 'rule:exclude' | 'rule:not-included';

export type RuleVerdict =
  | { admitted: true }
  | { admitted: false; reason: 'rule:exclude'; pattern: string }
  | { admitted: false; reason: 'rule:not-included'; includes: number };

const GLOB_OPTIONS = { dot: true, nonegate: true, strictBrackets: true, windows: false } as const;
/** What picomatch makes of a glob it cannot read: a regular expression that matches nothing. */
const MATCHES_NOTHING = '$^';
const SHOWN_PATTERN_CHARS = 80;

/** A pattern that cannot be used: names the list, the pattern and why. */
export class UrlPatternError extends UsageError {
  constructor(list: RuleList, pattern: string, why: string) {
    const shown = pattern.length > SHOWN_PATTERN_CHARS ? `${pattern.slice(0, SHOWN_PATTERN_CHARS)}…` : pattern;
    super(`the ${list} pattern ${JSON.stringify(shown)} cannot be used: ${why}`, { setting: list, pattern: shown, why });
  }
}

interface CompiledPattern {
  pattern: string;
  regex: RegExp;
  glob: boolean;
}

/** One pattern compiled, or a UrlPatternError saying why it cannot be. */
function compilePattern(list: RuleList, pattern: string): CompiledPattern {
  const reading = readUrlPattern(pattern);
  if (!reading.ok) throw new UrlPatternError(list, pattern, reading.why);
  if (reading.kind === 'regex') return { pattern, regex: new RegExp(reading.source, reading.flags), glob: false };
  let regex: RegExp;
  try {
    regex = picomatch.makeRe(reading.glob, GLOB_OPTIONS);
  } catch (err) {
    throw new UrlPatternError(list, pattern, `it is not a glob (${err instanceof Error ? err.message : String(err)})`);
  }
  if (regex.source === MATCHES_NOTHING) throw new UrlPatternError(list, pattern, 'it is not a glob (an unclosed { or a range such as [z-a]?)');
  return { pattern, regex, glob: true };
}

/** Why a pattern cannot be used, or null when it can: what the New crawl form shows beside it. */
export function urlPatternProblem(list: RuleList, pattern: string): string | null {
  try {
    compilePattern(list, pattern);
    return null;
  } catch (err) {
    if (err instanceof UrlPatternError) return err.context.why as string;
    throw err;
  }
}

/** Whether a glob matches the whole URL or the URL without its query. */
function globMatches(regex: RegExp, url: string): boolean {
  if (regex.test(url)) return true;
  const query = url.indexOf('?');
  return query !== -1 && regex.test(url.slice(0, query));
}

/** The patterns of one list: all globs as one regular expression, each regular expression on its own. */
class PatternList {
  readonly patterns: readonly CompiledPattern[];
  readonly #globs: RegExp | undefined;
  readonly #regexes: readonly RegExp[];

  constructor(list: RuleList, patterns: readonly string[]) {
    if (patterns.length > NEW_CRAWL_INPUT_BOUNDS.patternCount) {
      throw new UsageError(`${patterns.length} ${list} patterns are too many: at most ${NEW_CRAWL_INPUT_BOUNDS.patternCount}`, { setting: list });
    }
    this.patterns = patterns.map((pattern) => compilePattern(list, pattern));
    const globs = this.patterns.filter((p) => p.glob);
    this.#globs = globs.length === 0 ? undefined : new RegExp(globs.map((p) => `(?:${p.regex.source})`).join('|'));
    this.#regexes = this.patterns.filter((p) => !p.glob).map((p) => p.regex);
  }

  get size(): number {
    return this.patterns.length;
  }

  matches(url: string): boolean {
    if (this.#globs !== undefined && globMatches(this.#globs, url)) return true;
    for (const regex of this.#regexes) if (regex.test(url)) return true;
    return false;
  }

  /** The first pattern, in the order given, that matches the URL. */
  firstMatch(url: string): string | undefined {
    return this.patterns.find((p) => (p.glob ? globMatches(p.regex, url) : p.regex.test(url)))?.pattern;
  }
}

/** A crawl's include and exclude rules. Throws UrlPatternError (a UsageError) for a pattern that cannot be used. */
export class UrlRules {
  readonly #include: PatternList;
  readonly #exclude: PatternList;

  constructor(settings: { include: readonly string[]; exclude: readonly string[] }) {
    this.#include = new PatternList('include', settings.include);
    this.#exclude = new PatternList('exclude', settings.exclude);
  }

  /** No rules: every URL in scope is admitted. */
  get empty(): boolean {
    return this.#include.size === 0 && this.#exclude.size === 0;
  }

  /** Why the rules refuse a canonical URL, or null when they admit it. */
  refusal(url: string): RuleRefusal | null {
    if (this.#exclude.size > 0 && this.#exclude.matches(url)) return 'rule:exclude';
    if (this.#include.size > 0 && !this.#include.matches(url)) return 'rule:not-included';
    return null;
  }

  /** refusal() with the rule that refuses: the exclude pattern that matched, or how many includes did not. */
  judge(url: string): RuleVerdict {
    const refusal = this.refusal(url);
    if (refusal === null) return { admitted: true };
    if (refusal === 'rule:not-included') return { admitted: false, reason: refusal, includes: this.#include.size };
    return { admitted: false, reason: refusal, pattern: this.#exclude.firstMatch(url) as string };
  }
}

/** A refusal in the command line's words: `excluded by --exclude "**\/*.zip"`, `not included by any --include (3 patterns)`. */
export function describeRuleRefusal(verdict: Exclude<RuleVerdict, { admitted: true }>): string {
  if (verdict.reason === 'rule:exclude') return `excluded by --exclude ${JSON.stringify(verdict.pattern)}`;
  return `not included by any --include (${verdict.includes} ${verdict.includes === 1 ? 'pattern' : 'patterns'})`;
}
