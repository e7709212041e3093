import type { RenderMode } from '../protocol/settings.ts';

/** Renders compared per group before the group is decided. */
const LEARNING_RENDERS = 3;
/** Once a group is decided static, one flagged page in this many is still rendered, to notice a change. */
const SAMPLE_EVERY = 10;

/** What a render changed, against the raw HTML of the same page. */
export interface RenderComparison {
  /** Links the render found that the HTML did not have. */
  newLinks: number;
  rawWords: number;
  renderedWords: number;
  /** Terms of the driving query the render shows and the HTML did not: what would move the page's relevance. */
  queryTermsGained: number;
  /** The judge's verdict (hot or not) on the rendered page differs from its verdict on the HTML. */
  verdictChanged: boolean;
}

/** Rendering changed the page materially: its verdict, new links, much more text, or words of the query the HTML lacked. */
export function changedMaterially(c: RenderComparison): boolean {
  return c.verdictChanged || c.queryTermsGained > 0 || c.newLinks >= 2 || (c.renderedWords >= c.rawWords * 1.5 && c.renderedWords - c.rawWords >= 50);
}

interface Group {
  state: 'learning' | 'render' | 'static';
  compared: number;
  flagged: number;
}

/** A page's group: its origin and the first segment of its path (`https://a.example/docs`). */
export function renderGroup(url: string): string {
  const parsed = new URL(url);
  const first = parsed.pathname.split('/')[1] ?? '';
  return `${parsed.origin}/${first}`;
}

/**
 * Decides per page whether to render it, and learns per group (host and first path
 * segment): the first flagged pages of a group are rendered and compared with their HTML;
 * a group whose renders change pages materially is rendered from then on, one whose renders
 * change nothing is rendered only for a sample of its flagged pages. A sample that changes
 * the page turns the group to rendering.
 */
export class RenderPolicy {
  readonly #mode: RenderMode;
  readonly #hostModes: Map<string, RenderMode>;
  readonly #groups = new Map<string, Group>();

  /** `hostModes`: modes of single hosts (lower-case host names) that override `mode`. */
  constructor(mode: RenderMode, hostModes: ReadonlyMap<string, RenderMode> = new Map()) {
    this.#mode = mode;
    this.#hostModes = new Map(hostModes);
  }

  /** Sets one host's mode, or (null) gives it the crawl's own again. */
  setHostMode(host: string, mode: RenderMode | null): void {
    if (mode === null) this.#hostModes.delete(host.toLowerCase());
    else this.#hostModes.set(host.toLowerCase(), mode);
  }

  /** The mode set for the host, or null when it has the crawl's own. */
  hostMode(host: string): RenderMode | null {
    return this.#hostModes.get(host.toLowerCase()) ?? null;
  }

  /** Whether to render an HTML page; `browserNeed` is the parser's sign (null: none). */
  shouldRender(url: string, browserNeed: string | null): boolean {
    const mode = this.#hostModes.get(new URL(url).hostname) ?? this.#mode;
    if (mode === 'never') return false;
    if (mode === 'always') return true;
    const group = this.#group(url);
    if (group.state === 'render') return true;
    if (browserNeed === null) return false;
    group.flagged++;
    return group.state === 'learning' || group.flagged % SAMPLE_EVERY === 0;
  }

  /** Records what a render changed; returns the group's state after it. */
  learn(url: string, comparison: RenderComparison): Group['state'] {
    const group = this.#group(url);
    if (changedMaterially(comparison)) group.state = 'render';
    else if (group.state === 'learning' && ++group.compared >= LEARNING_RENDERS) group.state = 'static';
    return group.state;
  }

  /** Each group's state, for the UI and the stats. */
  groups(): { group: string; state: Group['state'] }[] {
    return [...this.#groups].map(([group, g]) => ({ group, state: g.state }));
  }

  #group(url: string): Group {
    const key = renderGroup(url);
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = { state: 'learning', compared: 0, flagged: 0 };
      this.#groups.set(key, group);
    }
    return group;
  }
}
