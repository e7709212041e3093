import { ClockCache } from '../frontier/clock-cache.ts';
import type { LinkEvent } from '../ordering/strategy.ts';
import { linkKind, type UrlKind } from '../parse/url-kind.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { HostStore } from '../store/host-store.ts';
import { UrlState, type UrlStateValue } from '../store/url-state.ts';
import type { UrlStore } from '../store/url-store.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import { fingerprint } from '../url/fingerprint.ts';
import type { Scope } from '../url/scope.ts';
import { detectTrap } from '../url/traps.ts';
import { UrlRules, type RuleRefusal } from '../url/url-rules.ts';

/** Where a discovered link came from. */
export interface Discovery {
  depth: number;
  parentId: number | null;
  redirects: number;
  anchor: string;
  /** Words around the anchor on the page (empty for seeds, redirects and hints). */
  context: string;
  /** Seeds define the scope, so they skip the scope, trap and include/exclude tests. */
  isSeed: boolean;
  /** What the discoverer says the URL holds (a sitemap, a search index); default an ordinary page. */
  kind?: UrlKind;
  /** The grade of the linking page when it is another shard's (see LinkEvent.sourceGrade). */
  sourceGrade?: number;
}

/** A URL that passed the seen test: its id, and for a new URL the state it was stored in. */
export type Admitted = { id: number; isNew: false } | { id: number; isNew: true; state: UrlStateValue };

/** Where a newly stored URL went: the engine queues it on its host when it is queued. */
export interface NewUrlPlacement {
  state: UrlStateValue;
  hostId: number;
  origin: string;
}

/** Hooks into the engine: robots verdicts for known hosts, and every link that passed the seen test. */
export interface AdmissionHooks {
  /** A reason to block a URL on a host whose robots.txt is already known, or null. */
  robotsBlockReason(hostId: number, origin: string, url: string): string | null;
  /** Called for every admitted link, new or already seen; `placement` only for a new URL. */
  linked(link: LinkEvent, placement: NewUrlPlacement | undefined): void;
  /** In a partitioned crawl: why a URL in scope is another partition's to fetch ('partition:17'), or null. */
  elsewhere?(url: string): string | null;
}

/** The settings UrlAdmission reads (scope is given built, as a Scope). */
export type AdmissionSettings = Pick<CrawlSettings, 'maxUrlLength' | 'maxDepth' | 'include' | 'exclude'>;

export const MAX_REDIRECTS = 5;

/**
 * The seen test and the gate into the frontier. Every discovered URL is canonicalised,
 * fingerprinted and looked up (CLOCK cache first, then the unique index). A new URL is
 * stored once, either queued or with the reason it will not be fetched: out of scope,
 * refused by an include or exclude rule (`rule:exclude`, `rule:not-included`), too deep, a
 * trap, another partition's, or robots-blocked.
 */
export class UrlAdmission {
  readonly cache: ClockCache;
  readonly #settings: AdmissionSettings;
  readonly #urls: UrlStore;
  readonly #hosts: HostStore;
  readonly #scope: Scope;
  /** The include and exclude rules, compiled once; the engine reads them too (URLs queued before they changed). */
  readonly rules: UrlRules;
  readonly #hooks: AdmissionHooks;
  /** URL ids that are site resources, read from the store on first use: a few per site. */
  #resourceKinds: Map<number, UrlKind> | undefined;

  constructor(
    settings: AdmissionSettings,
    stores: { urls: UrlStore; hosts: HostStore },
    scope: Scope,
    hooks: AdmissionHooks,
    cacheSize: number,
  ) {
    this.#settings = settings;
    this.#urls = stores.urls;
    this.#hosts = stores.hosts;
    this.#scope = scope;
    this.rules = new UrlRules(settings);
    this.#hooks = hooks;
    this.cache = new ClockCache(cacheSize);
  }

  /** Admits one raw link, resolved against base. undefined when it is not a crawlable URL at all. */
  admit(raw: string, base: string, from: Discovery): Admitted | undefined {
    const canon = tryCanonicalize(raw, base, { maxLength: this.#settings.maxUrlLength });
    if (!canon.ok) return undefined;
    const url = canon.url;
    const fp = fingerprint(url);
    const link = { srcId: from.parentId, url, depth: from.depth, anchor: from.anchor, context: from.context, ...(from.sourceGrade === undefined ? {} : { sourceGrade: from.sourceGrade }) };
    const cached = this.cache.get(fp);
    if (cached !== undefined) return this.#known(link, cached, from.kind);
    const origin = originOf(url);
    const parsed = new URL(url);
    // Only origins in scope get a hosts row and host state; the rest share one row (HostStore.outOfScopeId).
    const inScope = from.isSeed || this.#scope.allows(parsed);
    // Another partition's URL is kept as a stub for the links that point at it, under no host of this shard: its owner fetches it.
    const elsewhere = inScope ? (this.#hooks.elsewhere?.(url) ?? null) : null;
    const hostId = inScope && elsewhere === null ? this.#hosts.idFor(origin) : this.#hosts.outOfScopeId();
    const stored = this.#urls.findIdByFingerprint(hostId, fp);
    if (stored !== undefined) {
      this.cache.set(fp, stored);
      return this.#known(link, stored, from.kind);
    }
    const kind = from.kind ?? 'page';
    const { state, reason } = this.#classify(parsed, url, hostId, origin, from, elsewhere);
    const id = this.#urls.insert({ fp, url, hostId, depth: from.depth, state, parentId: from.parentId, redirects: from.redirects, reason, kind });
    this.cache.set(fp, id);
    if (kind !== 'page') this.#kinds().set(id, kind);
    this.#hooks.linked({ ...link, ...linkKind(kind), dstId: id, isNew: true }, { state, hostId, origin });
    return { id, isNew: true, state };
  }

  /**
   * A URL seen before. The link event carries the URL's kind as stored, whoever links it;
   * a resource found at a URL still waiting as a page becomes that resource.
   */
  #known(link: Omit<LinkEvent, 'dstId' | 'isNew'>, id: number, claimed: UrlKind | undefined): Admitted {
    const kinds = this.#kinds();
    if (claimed !== undefined && claimed !== 'page' && !kinds.has(id) && this.#urls.promoteKind(id, claimed)) kinds.set(id, claimed);
    this.#hooks.linked({ ...link, ...linkKind(kinds.get(id) ?? 'page'), dstId: id, isNew: false }, undefined);
    return { id, isNew: false };
  }

  #kinds(): Map<number, UrlKind> {
    this.#resourceKinds ??= this.#urls.resourceKinds();
    return this.#resourceKinds;
  }

  #classify(parsed: URL, url: string, hostId: number, origin: string, from: Discovery, elsewhere: string | null): { state: UrlStateValue; reason: string | null } {
    if (from.redirects > MAX_REDIRECTS) return { state: UrlState.skipped, reason: 'redirect:too-many' };
    if (!from.isSeed) {
      const gated = gateRefusal(parsed, url, this.#scope, this.rules);
      if (gated !== null) return { state: UrlState.skipped, reason: gated };
      if (from.depth > this.#settings.maxDepth) return { state: UrlState.skipped, reason: 'depth' };
      const trap = detectTrap(parsed, { maxUrlLength: this.#settings.maxUrlLength });
      if (trap !== null) return { state: UrlState.skipped, reason: trap };
    }
    if (elsewhere !== null) return { state: UrlState.skipped, reason: elsewhere };
    const blocked = this.#hooks.robotsBlockReason(hostId, origin, url);
    if (blocked !== null) return { state: UrlState.robotsBlocked, reason: blocked };
    return { state: UrlState.queued, reason: null };
  }
}

/**
 * The user's gate on a URL that is not a seed: the scope, then the include and exclude
 * rules. The reason it refuses the canonical URL, or null. The New crawl form's live check
 * (url-check.ts) asks this very function.
 */
export function gateRefusal(parsed: URL, url: string, scope: Scope, rules: UrlRules): 'scope' | RuleRefusal | null {
  if (!scope.allows(parsed)) return 'scope';
  return rules.refusal(url);
}

/** The origin of a canonical URL, which always has the form scheme://authority/path. */
function originOf(canonicalUrl: string): string {
  return canonicalUrl.slice(0, canonicalUrl.indexOf('/', canonicalUrl.indexOf('//') + 2));
}
