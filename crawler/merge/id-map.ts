/**
 * What one shard's ids (URL ids, page seqs) became in the merged collection. Ids are
 * SQLite rowids handed out from 1 and never deleted, so a typed array indexed by id is
 * 4 bytes a row; a file whose ids are sparse (hand-edited, damaged) gets a Map instead
 * rather than an array sized by its largest id. 0 means "no entry".
 */
export class IdMap {
  readonly #dense: Int32Array | undefined;
  readonly #sparse: Map<number, number> | undefined;

  constructor(maxId: number, count: number) {
    if (maxId <= 2 * count + 4096) this.#dense = new Int32Array(maxId + 1);
    else this.#sparse = new Map();
  }

  set(id: number, value: number): void {
    if (this.#dense !== undefined) {
      if (id < 0 || id >= this.#dense.length) throw new RangeError(`id ${id} is past the largest id read (${this.#dense.length - 1})`);
      this.#dense[id] = value;
    } else (this.#sparse as Map<number, number>).set(id, value);
  }

  get(id: number): number {
    if (this.#dense !== undefined) return id >= 0 && id < this.#dense.length ? (this.#dense[id] as number) : 0;
    return (this.#sparse as Map<number, number>).get(id) ?? 0;
  }
}
