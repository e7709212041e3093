import type { Redis } from 'ioredis';
import type { OnlineLogistic } from '../ordering/focused/online-model.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { foundBy, isKeyDamage, throwDamage, type DamageReport } from './redis-damage.ts';

/*
 * One link model for the crawl. A worker's shards learn into one model (shard-runner.ts);
 * the workers share theirs: each publishes its dense weights and how many pages taught them,
 * and moves its weights to the mean of everyone's, counted by examples (OnlineLogistic.blend).
 * So a priority means the same on every worker, which the crawl-wide cut-off compares.
 * The hashed URL-word weights stay each worker's own: 65,536 of them would cost Redis more
 * than they tell another worker's partitions, whose sites have other URLs.
 *
 * Another worker's field is checked before it counts: as many finite weights as this
 * model's, and a whole number of examples. A damaged one is left out and reported.
 */

interface PublishedModel {
  weights: number[];
  examples: number;
}

export class SharedLinkModel {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #worker: string;
  readonly #onDamage: DamageReport;
  /** Examples already counted from each other worker at the last blend: only what it learnt since counts again. */
  readonly #seen = new Map<string, number>();

  constructor(redis: Redis, keys: ClusterKeys, worker: string, onDamage: DamageReport = throwDamage(keys.name)) {
    this.#redis = redis;
    this.#keys = keys;
    this.#worker = worker;
    this.#onDamage = onDamage;
  }

  /** Publishes `model`'s weights and blends in the other live workers'. */
  async exchange(model: OnlineLogistic, live: readonly string[]): Promise<void> {
    const key = this.#keys.linkModels;
    let fields: Record<string, string>;
    try {
      await this.#redis.hset(key, this.#worker, JSON.stringify({ weights: Array.from(model.weights), examples: model.examples } satisfies PublishedModel));
      fields = await this.#redis.hgetall(key);
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#onDamage({ key, expected: 'each worker\'s link model (a hash of JSON fields)', found: foundBy(err), meanwhile: 'each worker orders by its own link model', repair: `delete it (redis-cli DEL ${key}): the workers write it again within a second` });
      return;
    }
    const others: PublishedModel[] = [];
    for (const [worker, text] of Object.entries(fields)) {
      if (worker === this.#worker) continue;
      if (!live.includes(worker)) {
        await this.#redis.hdel(key, worker);
        this.#seen.delete(worker);
        continue;
      }
      const published = parseModel(text, model.weights.length);
      if (published === undefined) {
        const field = JSON.stringify(worker.slice(0, 80));
        this.#onDamage({ key, expected: `a link model of ${model.weights.length} finite weights`, found: `its field ${field} holds ${JSON.stringify(text.slice(0, 40))}`, meanwhile: 'that worker\'s model is left out', repair: `delete the field (redis-cli HDEL ${key} ${field}): a live worker writes its own again within a second` });
        continue;
      }
      // Only what it learnt since the last blend: what it taught before is in these weights already.
      const fresh = published.examples - (this.#seen.get(worker) ?? 0);
      this.#seen.set(worker, published.examples);
      if (fresh > 0) others.push({ weights: published.weights, examples: fresh });
    }
    if (others.length > 0) model.blend(others);
  }

  async leave(): Promise<void> {
    await this.#redis.hdel(this.#keys.linkModels, this.#worker);
  }
}

function parseModel(text: string, length: number): PublishedModel | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { weights, examples } = parsed as Partial<PublishedModel>;
  if (!Number.isInteger(examples) || (examples as number) < 0) return undefined;
  if (!Array.isArray(weights) || weights.length !== length || !weights.every((w) => typeof w === 'number' && Number.isFinite(w))) return undefined;
  return { weights, examples: examples as number };
}
