/**
 * Deciding whether robots.txt lets a product token fetch a path (RFC 9309 §2.2).
 *
 * Paths are compared as strings after the same normalisation on both sides: escapes get
 * upper-case hex, characters never valid in a URI are percent-encoded, and %2A / %24
 * stand for a literal '*' / '$' (RFC 9309 §2.2.3). Other escapes are compared as written:
 * %2F is not '/', and, as the conformance vectors require, %62 is not 'b' either.
 * Non-ASCII characters in the path are not encoded here: pass a WHATWG-serialised
 * path and query (`url.pathname + url.search`), which is already percent-encoded.
 */
import { UsageError } from '../errors.ts';
import { mustBePercentEncoded } from './parse.ts';
import type { RobotsFile, RobotsGroup, RobotsRule } from './parse.ts';

/**
 * A rule as a glob split on '*': `head` must be a prefix of the path, each of `middle`
 * must follow in order, then `tail` (at the very end when `anchored`). `tail` is
 * undefined for a rule without '*'.
 */
interface CompiledRule {
  readonly allow: boolean;
  readonly priority: number;
  readonly head: string;
  readonly middle: readonly string[];
  readonly tail: string | undefined;
  readonly anchored: boolean;
  readonly rule: RobotsRule;
  /** Its place in AgentRules.rules: the first matching rule in that order decides. */
  order: number;
}

export type MatchScope = 'agent' | 'global' | 'none';

interface AgentRules {
  readonly scope: MatchScope;
  /** Most specific first; on equal length, allow before disallow. The first match decides. */
  readonly rules: readonly CompiledRule[];
  /**
   * The rules by their literal head, and the lengths heads come in, shortest first. Only a
   * rule whose head begins the path can match, so a lookup reads those few rules, not all of
   * them: 26,000 rules cost one look per head length instead of 26,000 comparisons.
   */
  readonly byHead: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly headLengths: readonly number[];
  readonly crawlDelaySeconds: number | undefined;
}

export interface MatchExplanation {
  /** The verdict, including the implicit allowance of /robots.txt. */
  readonly allowed: boolean;
  /** The verdict of the rules alone; differs from `allowed` only for /robots.txt. */
  readonly allowedByRules: boolean;
  readonly decidedBy: 'rule' | 'no-matching-rule' | 'implicit-robots-txt';
  /** Whose rules applied: groups naming the token, the '*' groups, or none at all. */
  readonly scope: MatchScope;
  /** The most specific matching rule, when one matched. */
  readonly rule: RobotsRule | undefined;
  /** The path and query in the form that was compared. */
  readonly comparedPath: string;
}

// Keyed by the token as given so that the hot path does not lower-case it on every call.
const rulesCache = new WeakMap<RobotsFile, Map<string, AgentRules>>();

export function isAllowed(robots: RobotsFile, userAgentToken: string, urlPathAndQuery: string): boolean {
  const path = comparablePath(urlPathAndQuery);
  if (path === ROBOTS_TXT_PATH) return true;
  const winner = mostSpecificMatch(rulesFor(robots, userAgentToken), path);
  return winner === undefined || winner.allow;
}

/** The same decision as isAllowed, with what decided it (for `forager robots`). */
export function explainMatch(robots: RobotsFile, userAgentToken: string, urlPathAndQuery: string): MatchExplanation {
  const path = comparablePath(urlPathAndQuery);
  const agentRules = rulesFor(robots, userAgentToken);
  const winner = mostSpecificMatch(agentRules, path);
  const allowedByRules = winner === undefined || winner.allow;
  const implicit = path === ROBOTS_TXT_PATH;
  return {
    allowed: implicit || allowedByRules,
    allowedByRules,
    decidedBy: implicit ? 'implicit-robots-txt' : winner === undefined ? 'no-matching-rule' : 'rule',
    scope: agentRules.scope,
    rule: winner?.rule,
    comparedPath: path,
  };
}

/** Crawl-delay of the groups that apply to the token (the largest, when merged groups disagree). */
export function crawlDelaySeconds(robots: RobotsFile, userAgentToken: string): number | undefined {
  return rulesFor(robots, userAgentToken).crawlDelaySeconds;
}

export function sitemaps(robots: RobotsFile): string[] {
  return [...robots.sitemaps];
}

/**
 * The product token that robots.txt groups are matched against: the first product of a
 * User-Agent header ("Forager/0.1 (+https://example.org/forager)" gives "Forager").
 * RFC 9309 §2.2.1 allows only letters, '_' and '-' in it.
 */
export function productToken(userAgentHeader: string): string {
  const trimmed = userAgentHeader.trim();
  const end = trimmed.search(/[\s/]/);
  const token = end === -1 ? trimmed : trimmed.slice(0, end);
  if (!/^[A-Za-z_-]+$/.test(token)) {
    throw new UsageError('The User-Agent must start with a product token made of letters, "_" and "-", such as "Forager/0.1".', {
      userAgent: userAgentHeader,
    });
  }
  return token;
}

const ROBOTS_TXT_PATH = '/robots.txt';

function rulesFor(robots: RobotsFile, userAgentToken: string): AgentRules {
  let byToken = rulesCache.get(robots);
  if (byToken === undefined) {
    byToken = new Map();
    rulesCache.set(robots, byToken);
  }
  let agentRules = byToken.get(userAgentToken);
  if (agentRules === undefined) {
    agentRules = buildAgentRules(robots.groups, userAgentToken.toLowerCase());
    byToken.set(userAgentToken, agentRules);
  }
  return agentRules;
}

/** RFC 9309 §2.2.1: merge every group naming the token; only if none does, every '*' group. */
function buildAgentRules(groups: readonly RobotsGroup[], token: string): AgentRules {
  let scope: MatchScope = 'agent';
  let applicable = groups.filter((group) => token !== '*' && group.agents.includes(token));
  if (applicable.length === 0) {
    applicable = groups.filter((group) => group.agents.includes('*'));
    scope = applicable.length === 0 ? 'none' : 'global';
  }
  const rules = applicable.flatMap((group) => group.rules.map(compileRule));
  rules.sort((a, b) => b.priority - a.priority || Number(b.allow) - Number(a.allow));
  const byHead = new Map<string, CompiledRule[]>();
  rules.forEach((rule, order) => {
    rule.order = order;
    const same = byHead.get(rule.head);
    if (same === undefined) byHead.set(rule.head, [rule]);
    else same.push(rule);
  });
  const headLengths = [...new Set(rules.map((rule) => rule.head.length))].sort((a, b) => a - b);
  let delay: number | undefined;
  for (const group of applicable) {
    const groupDelay = group.crawlDelaySeconds;
    if (groupDelay !== undefined && (delay === undefined || groupDelay > delay)) delay = groupDelay;
  }
  return { scope, rules, byHead, headLengths, crawlDelaySeconds: delay };
}

function compileRule(rule: RobotsRule): CompiledRule {
  const anchored = rule.pattern.endsWith('$');
  const body = anchored ? rule.pattern.slice(0, -1) : rule.pattern;
  const parts = body.split('*').map(literalText);
  const head = parts[0] ?? '';
  const tail = parts.length > 1 ? parts[parts.length - 1] : undefined;
  const middle = parts.slice(1, -1).filter((part) => part !== '');
  return { allow: rule.directive === 'allow', priority: rule.pattern.length, head, middle, tail, anchored, rule, order: 0 };
}

function literalText(part: string): string {
  return part.replaceAll('%2A', '*').replaceAll('%24', '$');
}

function mostSpecificMatch(agentRules: AgentRules, path: string): CompiledRule | undefined {
  const candidates: CompiledRule[] = [];
  for (const length of agentRules.headLengths) {
    if (length > path.length) break;
    const rules = agentRules.byHead.get(length === path.length ? path : path.slice(0, length));
    if (rules !== undefined) for (const rule of rules) candidates.push(rule);
  }
  if (candidates.length > 1) candidates.sort((a, b) => a.order - b.order);
  for (const rule of candidates) {
    if (ruleMatches(rule, path)) return rule;
  }
  return undefined;
}

/**
 * Greedy glob matching: taking the leftmost occurrence of each literal never loses a
 * match that a later occurrence would find, so there is no backtracking and the cost is
 * one left-to-right pass of substring searches, however many '*' the rule has.
 */
function ruleMatches(rule: CompiledRule, path: string): boolean {
  if (rule.tail === undefined) return rule.anchored ? path === rule.head : path.startsWith(rule.head);
  if (!path.startsWith(rule.head)) return false;
  let pos = rule.head.length;
  for (const literal of rule.middle) {
    const at = path.indexOf(literal, pos);
    if (at === -1) return false;
    pos = at + literal.length;
  }
  if (rule.anchored) return path.length - rule.tail.length >= pos && path.endsWith(rule.tail);
  return path.indexOf(rule.tail, pos) !== -1;
}

const HEX_DIGITS = '0123456789ABCDEF';

function isHexCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** An escape that normalisation changes: lower-case hex, or %2A / %24. */
function escapeNeedsRewrite(path: string, i: number): boolean {
  const hi = path.charCodeAt(i + 1);
  const lo = path.charCodeAt(i + 2);
  if (!isHexCode(hi) || !isHexCode(lo)) return false;
  return hi >= 0x61 || lo >= 0x61 || (hi === 0x32 && ((lo | 0x20) === 0x61 || lo === 0x34));
}

/** The path in the form rules are compared with; returns the input itself when it already is. */
function comparablePath(pathAndQuery: string): string {
  const rooted = pathAndQuery.charCodeAt(0) === 0x2f;
  let firstChange = -1;
  for (let i = 0; i < pathAndQuery.length; i++) {
    const c = pathAndQuery.charCodeAt(i);
    if ((c === 0x25 && escapeNeedsRewrite(pathAndQuery, i)) || mustBePercentEncoded(c)) {
      firstChange = i;
      break;
    }
  }
  if (firstChange === -1) return rooted ? pathAndQuery : '/' + pathAndQuery;

  let out = (rooted ? '' : '/') + pathAndQuery.slice(0, firstChange);
  for (let i = firstChange; i < pathAndQuery.length; i++) {
    const c = pathAndQuery.charCodeAt(i);
    if (c === 0x25 && isHexCode(pathAndQuery.charCodeAt(i + 1)) && isHexCode(pathAndQuery.charCodeAt(i + 2))) {
      const hex = pathAndQuery.slice(i + 1, i + 3).toUpperCase();
      out += hex === '2A' ? '*' : hex === '24' ? '$' : '%' + hex;
      i += 2;
    } else if (mustBePercentEncoded(c)) {
      out += '%' + HEX_DIGITS[c >> 4] + HEX_DIGITS[c & 15];
    } else {
      out += pathAndQuery[i];
    }
  }
  return out;
}
