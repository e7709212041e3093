/**
 * Small integer ids for terms, so evidence tables are typed arrays indexed by id. The
 * dictionary stops growing at `limit` terms: later new terms get -1 and carry no
 * evidence (a crawl's useful vocabulary is met early; the tail is typos and ids).
 */
export class TermIds {
  readonly limit: number;
  readonly #ids = new Map<string, number>();

  constructor(limit: number) {
    this.limit = limit;
  }

  get size(): number {
    return this.#ids.size;
  }

  /** The term's id, or -1 when the dictionary is full and the term is new. */
  id(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      if (this.#ids.size >= this.limit) return -1;
      id = this.#ids.size;
      this.#ids.set(term, id);
    }
    return id;
  }
}
