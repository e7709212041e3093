import type { UrlHint } from '../parse/url-kind.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';
import { changedChance, DEFAULT_CHANGES_PER_MS, pageChangeRate, revisitPriority, type RevisitFacts } from './revisit-policy.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from './strategy.ts';

/** A site resource (a sitemap, a search index) is revisited before the pages: it is cheap, and its lastmods say which pages changed. */
const RESOURCE_PRIORITY = 1;

interface QueuedRevisit {
  facts: RevisitFacts;
  /** A site resource: revisited first. */
  resource: boolean;
  priority: number;
}

/**
 * The crawl's ordering with revisits beside it: a stored page queued for a revisit gets the
 * revisit policy's priority (revisit-policy.ts), any other URL the strategy's. Both are on one
 * scale (a chance, 0 to 1), so one frontier orders new URLs and revisits together. Sitemaps'
 * lastmods reach the revisits through hinted(), before the strategy hears them.
 */
export class RevisitOrdering implements OrderingStrategy {
  readonly #inner: OrderingStrategy;
  readonly #queued = new Map<number, QueuedRevisit>();
  readonly #lastModified = new Map<number, number>();
  #changed: number[] = [];
  #pooled: number;
  readonly #now: () => number;

  constructor(inner: OrderingStrategy, now: () => number = Date.now) {
    this.#inner = inner;
    this.#now = now;
    this.#pooled = DEFAULT_CHANGES_PER_MS;
  }

  get name(): string {
    return this.#inner.name;
  }

  get needsHistory(): boolean | undefined {
    return this.#inner.needsHistory;
  }

  /** The collection's change rate pooled over every revisit, from which pages without revisits of their own start. */
  setPooledRate(changesPerMs: number): void {
    this.#pooled = changesPerMs;
  }

  /** A stored page waits for a revisit. */
  queue(id: number, facts: RevisitFacts, resource: boolean): void {
    const lastModified = this.#lastModified.get(id);
    const withLastmod = lastModified === undefined ? facts : { ...facts, lastModified };
    this.#queued.set(id, { facts: withLastmod, resource, priority: this.#priorityOf(withLastmod, resource) });
  }

  /** The revisit was made (or given up): the URL's priority is the strategy's again. */
  done(id: number): void {
    this.#queued.delete(id);
  }

  isRevisit(id: number): boolean {
    return this.#queued.has(id);
  }

  get queuedRevisits(): number {
    return this.#queued.size;
  }

  linked(link: LinkEvent): void {
    this.#inner.linked(link);
  }

  hinted(hint: UrlHint): void {
    if (hint.lastModified !== undefined) {
      this.#lastModified.set(hint.id, hint.lastModified);
      const queued = this.#queued.get(hint.id);
      if (queued !== undefined) {
        queued.facts = { ...queued.facts, lastModified: hint.lastModified };
        queued.priority = this.#priorityOf(queued.facts, queued.resource);
        this.#changed.push(hint.id);
      }
    }
    this.#inner.hinted?.(hint);
  }

  fetched(page: PageVerdict): void {
    this.#inner.fetched(page);
  }

  labelled(id: number, relevant: boolean | null): void {
    this.#inner.labelled?.(id, relevant);
  }

  priority(id: number): number {
    const queued = this.#queued.get(id);
    return queued === undefined ? this.#inner.priority(id) : queued.priority;
  }

  takeChanged(): number[] {
    const inner = this.#inner.takeChanged();
    if (this.#changed.length === 0) return inner;
    const changed = this.#changed;
    this.#changed = [];
    return [...changed, ...inner];
  }

  explain(id: number): PriorityExplanation {
    const queued = this.#queued.get(id);
    if (queued === undefined) return this.#inner.explain(id);
    if (queued.resource) {
      return { priority: queued.priority, signals: [{ name: 'revisit:resource', value: 1, contribution: queued.priority, note: 'a site resource is revisited first: its lastmods say which pages changed' }] };
    }
    const chance = changedChance(queued.facts, this.#pooled, this.#now());
    const perDay = pageChangeRate(queued.facts, this.#pooled) * 86_400_000;
    return {
      priority: queued.priority,
      signals: [
        {
          name: 'revisit:changed-chance',
          value: chance,
          contribution: queued.priority,
          note: queued.facts.lastModified !== undefined
            ? `a sitemap's lastmod says ${queued.facts.lastModified > queued.facts.checkedAt ? 'it changed' : 'it did not change'} since the last check`
            : `${perDay.toPrecision(2)} changes a day estimated from ${queued.facts.revisits} revisits (${queued.facts.changes} changed), pooled with the collection's`,
        },
        { name: 'revisit:value', value: queued.facts.value, contribution: 0, note: 'how much the page matters: its graded verdict' },
      ],
    };
  }

  #priorityOf(facts: RevisitFacts, resource: boolean): number {
    return resource ? RESOURCE_PRIORITY : revisitPriority(facts, this.#pooled, this.#now());
  }
}
