import type { Redis } from 'ioredis';
import type { OnlineLogistic } from '../ordering/focused/online-model.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { throwDamage, type DamageReport } from './redis-damage.ts';
import { parseJson, WorkerFields } from './worker-fields.ts';

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
  readonly #fields: WorkerFields<PublishedModel>;
  /** Examples already counted from each other worker at the last blend: only what it learnt since counts again. */
  readonly #seen = new Map<string, number>();

  constructor(redis: Redis, keys: ClusterKeys, worker: string, onDamage: DamageReport = throwDamage(keys.name)) {
    this.#fields = new WorkerFields(redis, keys.linkModels, worker, {
      expected: 'each worker\'s link model (a hash of JSON fields)',
      meanwhile: 'each worker orders by its own link model',
      fieldExpected: 'a link model: as many finite weights as this worker\'s, and a whole number of examples',
      fieldMeanwhile: 'that worker\'s model is left out',
    }, onDamage);
  }

  /** Publishes `model`'s weights and blends in the other live workers'. */
  async exchange(model: OnlineLogistic, live: readonly string[]): Promise<void> {
    const own: PublishedModel = { weights: Array.from(model.weights), examples: model.examples };
    const fields = await this.#fields.exchange(JSON.stringify(own), live, (text) => parseModel(text, model.weights.length));
    if (fields === undefined) return;
    for (const worker of this.#seen.keys()) if (!live.includes(worker)) this.#seen.delete(worker);
    const others: PublishedModel[] = [];
    for (const [worker, published] of fields) {
      // Only what it learnt since the last blend: what it taught before is in these weights already.
      const fresh = published.examples - (this.#seen.get(worker) ?? 0);
      this.#seen.set(worker, published.examples);
      if (fresh > 0) others.push({ weights: published.weights, examples: fresh });
    }
    if (others.length > 0) model.blend(others);
  }

  async leave(): Promise<void> {
    await this.#fields.leave();
  }
}

function parseModel(text: string, length: number): PublishedModel | undefined {
  const parsed = parseJson(text);
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { weights, examples } = parsed as Partial<PublishedModel>;
  if (!Number.isInteger(examples) || (examples as number) < 0) return undefined;
  if (!Array.isArray(weights) || weights.length !== length || !weights.every((w) => typeof w === 'number' && Number.isFinite(w))) return undefined;
  return { weights, examples: examples as number };
}
