import type { RenderMode } from '../protocol/settings.ts';

/** Renders compared per group before the group is decided. */
const LEARNING_RENDERS = 3;
/**
 * Once a group is decided static, a flagged page is still rendered now and then, to notice a
 * change: the tenth after the decision, and each sample that changes nothing doubles the
 * gap to the next, up to one in 160. A sample costs about a second of a browser's time, and at
 * one in ten, on a site whose every page is flagged, that was a tenth of a second per page.
 */
const FIRST_SAMPLE_GAP = 10;
const MAX_SAMPLE_GAP = 160;

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
  /** Flagged pages from one sample of a static group to the next, and the count at which the next is taken. */
  sampleGap: number;
  nextSample: number;
  /** Learning renders under way: with those compared, at most LEARNING_RENDERS. */
  learning: number;
  /** Pages that wait for the group to learn (or for a learning render to give up its turn). */
  waiting: (() => void)[];
}

/**
 * What to do with a page: render it, store its HTML as it is, or wait until its group has
 * learned whether renders change its pages (`RenderPolicy.afterWait`).
 */
export type RenderPlan = 'render' | 'skip' | 'wait';

/**
 * A page's group: its origin and the first folder of its path (`https://a.example/docs`).
 * A page at the top (`/git-mv.html`) is in the origin's group: taking its own name made
 * every such page a group of one, so each was rendered to learn about it (git-doc: 67
 * renders that changed nothing, 11 pages/s where the crawl without them made 150).
 */
export function renderGroup(url: string): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/');
  const folder = segments.length > 2 ? segments[1] : '';
  return `${parsed.origin}/${folder}`;
}

/**
 * Decides per page whether to render it, and learns per group (host and first folder of
 * the path): the first flagged pages of a group are rendered and compared with their HTML;
 * a group whose renders change pages materially is rendered from then on, one whose renders
 * change nothing is rendered only for a sample of its flagged pages, sparser as samples
 * keep changing nothing. A sample that changes the page turns the group to rendering. Only
 * LEARNING_RENDERS renders of a group learn at a time: pages flagged meanwhile wait for the
 * outcome, where each used to be rendered (a render takes about a second, in which a crawl
 * of one site fetches a hundred pages).
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

  /** What to do with an HTML page; `browserNeed` is the parser's sign (null: none). */
  plan(url: string, browserNeed: string | null): RenderPlan {
    const mode = this.#hostModes.get(new URL(url).hostname) ?? this.#mode;
    if (mode === 'never') return 'skip';
    if (mode === 'always') return 'render';
    const group = this.#group(url);
    if (group.state === 'render') return 'render';
    if (browserNeed === null) return 'skip';
    group.flagged++;
    if (group.state === 'static') {
      if (group.flagged < group.nextSample) return 'skip';
      group.nextSample = group.flagged + group.sampleGap;
      group.sampleGap = Math.min(group.sampleGap * 2, MAX_SAMPLE_GAP);
      return 'render';
    }
    return takeLearningTurn(group) ? 'render' : 'wait';
  }

  /** A page that was told to wait: whether to render it, once its group has learned or a learning turn came free. */
  async afterWait(url: string): Promise<Exclude<RenderPlan, 'wait'>> {
    const group = this.#group(url);
    while (group.state === 'learning') {
      if (takeLearningTurn(group)) return 'render';
      await new Promise<void>((resolve) => group.waiting.push(resolve));
    }
    return group.state === 'render' ? 'render' : 'skip';
  }

  /** Records what a render changed; returns the group's state after it. */
  learn(url: string, comparison: RenderComparison): Group['state'] {
    const group = this.#group(url);
    if (changedMaterially(comparison)) group.state = 'render';
    else if (group.state === 'learning' && ++group.compared >= LEARNING_RENDERS) {
      group.state = 'static';
      group.nextSample = group.flagged + FIRST_SAMPLE_GAP;
      group.sampleGap = FIRST_SAMPLE_GAP * 2;
    }
    endLearningTurn(group);
    return group.state;
  }

  /** A render that failed: a learning turn it held goes to a waiting page. */
  giveUp(url: string): void {
    endLearningTurn(this.#group(url));
  }

  /** Each group's state, for the UI and the stats. */
  groups(): { group: string; state: Group['state'] }[] {
    return [...this.#groups].map(([group, g]) => ({ group, state: g.state }));
  }

  #group(url: string): Group {
    const key = renderGroup(url);
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = { state: 'learning', compared: 0, flagged: 0, sampleGap: FIRST_SAMPLE_GAP, nextSample: 0, learning: 0, waiting: [] };
      this.#groups.set(key, group);
    }
    return group;
  }
}

function takeLearningTurn(group: Group): boolean {
  if (group.compared + group.learning >= LEARNING_RENDERS) return false;
  group.learning++;
  return true;
}

/** Ends a render's turn (renders outside learning held none) and lets the waiting pages ask again. */
function endLearningTurn(group: Group): void {
  if (group.learning > 0) group.learning--;
  for (const wake of group.waiting.splice(0)) wake();
}
