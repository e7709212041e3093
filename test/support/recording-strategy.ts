import type { UrlHint, UrlKind } from '../../crawler/parse/url-kind.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from '../../crawler/ordering/strategy.ts';
import type { PriorityExplanation } from '../../crawler/protocol/explanation.ts';

/** One event as a strategy was told it, with URLs for ids: a crawl and a lab replay number URLs differently. */
export type RecordedEvent =
  | { type: 'linked'; src: string | null; url: string; kind: UrlKind; anchor: string }
  | { type: 'hinted'; url: string; hint: Omit<UrlHint, 'id'> }
  | { type: 'fetched'; url: string };

/**
 * An ordering strategy for tests: every URL has the same priority (discovery order
 * decides, as with bfs), and every event is written down in the order it came.
 */
export class RecordingStrategy implements OrderingStrategy {
  readonly name = 'recording';
  readonly events: RecordedEvent[] = [];
  readonly #urls = new Map<number, string>();

  linked(link: LinkEvent): void {
    this.#urls.set(link.dstId, link.url);
    this.events.push({ type: 'linked', src: link.srcId === null ? null : this.#url(link.srcId), url: link.url, kind: link.kind ?? 'page', anchor: link.anchor });
  }

  hinted(hint: UrlHint): void {
    const { id, ...rest } = hint;
    this.events.push({ type: 'hinted', url: this.#url(id), hint: rest });
  }

  fetched(page: PageVerdict): void {
    this.events.push({ type: 'fetched', url: this.#url(page.id) });
  }

  priority(): number {
    return 0;
  }

  takeChanged(): number[] {
    return [];
  }

  explain(): PriorityExplanation {
    return { priority: 0, signals: [] };
  }

  /** The hints each fetched resource gave, in order, by the resource's URL. */
  hintsByResource(): Map<string, RecordedEvent[]> {
    const byResource = new Map<string, RecordedEvent[]>();
    let pending: RecordedEvent[] = [];
    for (const event of this.events) {
      if (event.type === 'hinted') pending.push(event);
      else if (event.type === 'fetched') {
        if (pending.length > 0) byResource.set(event.url, pending);
        pending = [];
      }
    }
    return byResource;
  }

  #url(id: number): string {
    const url = this.#urls.get(id);
    if (url === undefined) throw new Error(`event for id ${id}, which no linked() named`);
    return url;
  }
}
