import type { Redis } from 'ioredis';
import { foundBy, isKeyDamage, type DamageReport } from './redis-damage.ts';

/*
 * A Redis hash with one field per live worker, each worker writing its own and reading the
 * others' (judge statistics, the best waiting priorities, link models). Fields of workers no
 * longer live are deleted. What another worker wrote is input: a field that does not parse
 * is left out and reported, and a damaged hash is reported and read as holding nothing.
 */

/** What the reports of a damaged hash or field say. */
export interface FieldTexts {
  /** What the hash holds ("each worker's link model (a hash of JSON fields)"). */
  expected: string;
  /** What the workers do while the hash is damaged. */
  meanwhile: string;
  /** What a field holds, when one does not. */
  fieldExpected: string;
  /** What becomes of a field that does not parse. */
  fieldMeanwhile: string;
}

export class WorkerFields<T> {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #worker: string;
  readonly #texts: FieldTexts;
  readonly #onDamage: DamageReport;

  constructor(redis: Redis, key: string, worker: string, texts: FieldTexts, onDamage: DamageReport) {
    this.#redis = redis;
    this.#key = key;
    this.#worker = worker;
    this.#texts = texts;
    this.#onDamage = onDamage;
  }

  /**
   * Writes this worker's field (`own`; undefined removes it) and returns the other live
   * workers' fields that `parse` accepts; undefined when the hash itself is damaged.
   */
  async exchange(own: string | undefined, live: readonly string[], parse: (text: string) => T | undefined): Promise<Map<string, T> | undefined> {
    const key = this.#key;
    let fields: Record<string, string>;
    try {
      if (own === undefined) await this.#redis.hdel(key, this.#worker);
      else await this.#redis.hset(key, this.#worker, own);
      fields = await this.#redis.hgetall(key);
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#onDamage({
        key, expected: this.#texts.expected, found: foundBy(err), meanwhile: this.#texts.meanwhile,
        repair: `delete it (redis-cli DEL ${key}): the workers write it again within a second`,
      });
      return undefined;
    }
    const gone = Object.keys(fields).filter((worker) => worker !== this.#worker && !live.includes(worker));
    if (gone.length > 0) await this.#redis.hdel(key, ...gone);
    const others = new Map<string, T>();
    for (const [worker, text] of Object.entries(fields)) {
      if (worker === this.#worker || gone.includes(worker)) continue;
      const parsed = parse(text);
      if (parsed !== undefined) {
        others.set(worker, parsed);
        continue;
      }
      const field = JSON.stringify(worker.slice(0, 80));
      this.#onDamage({
        key, expected: this.#texts.fieldExpected, found: `its field ${field} holds ${JSON.stringify(text.slice(0, 40))}`, meanwhile: this.#texts.fieldMeanwhile,
        repair: `delete the field (redis-cli HDEL ${key} ${field}): a live worker writes its own again within a second`,
      });
    }
    return others;
  }

  async leave(): Promise<void> {
    await this.#redis.hdel(this.#key, this.#worker);
  }
}

/** JSON.parse that answers undefined for text that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
