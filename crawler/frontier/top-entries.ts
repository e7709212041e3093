/**
 * The k best (highest priority, then lowest id) of a stream of entries, kept in a small
 * sorted array: k is a screenful (tens), so insertion beats a heap and allocates nothing
 * per entry.
 */
export class TopEntries {
  readonly #limit: number;
  readonly #entries: { urlId: number; priority: number }[] = [];

  constructor(limit: number) {
    this.#limit = Math.max(0, Math.floor(limit));
  }

  offer(urlId: number, priority: number): void {
    const entries = this.#entries;
    if (entries.length === this.#limit) {
      const worst = entries[entries.length - 1];
      if (worst === undefined || !better(priority, urlId, worst.priority, worst.urlId)) return;
      entries.pop();
    }
    let i = entries.length;
    while (i > 0 && better(priority, urlId, (entries[i - 1] as { priority: number }).priority, (entries[i - 1] as { urlId: number }).urlId)) i--;
    entries.splice(i, 0, { urlId, priority });
  }

  best(): { urlId: number; priority: number }[] {
    return [...this.#entries];
  }
}

function better(pa: number, ia: number, pb: number, ib: number): boolean {
  return pa > pb || (pa === pb && ia < ib);
}
