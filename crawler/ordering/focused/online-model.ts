import { SparseWeights, type SparseWeightReader } from './sparse-weights.ts';

/*
 * The focused strategy's link model: a logistic regression learned online (Chakrabarti et
 * al.'s "apprentice", WWW 2002). It predicts, from a URL's features before the page is
 * fetched, how relevant the page will be: each fetched page is one example, its target the
 * judge's graded verdict in [0, 1] (soft labels, so a page just under the hot bar still
 * teaches something). Logistic rather than naive Bayes, whose probabilities Pant and
 * Srinivasan found skewed.
 *
 * Cold start: weights start at priors that order the first pages at least as well as a
 * naive best-first crawler, and are regularised towards those priors rather than towards
 * zero, so a feature keeps its prior meaning until the crawl's own pages say otherwise.
 * Steps are AdaGrad (per feature, shrinking as the feature's gradients accumulate), so
 * frequent features settle and rare ones still move.
 */

export interface ModelOptions {
  /** Base step size. */
  learningRate: number;
  /** Pull towards the prior weights, per example. */
  priorStrength: number;
}

export const DEFAULT_MODEL_OPTIONS: ModelOptions = { learningRate: 0.3, priorStrength: 0.01 };

/** Hashed sparse features (words of a URL): tokens below 2^16, prior weight 0. */
export const SPARSE_SIZE = 1 << 16;

export class OnlineLogistic {
  readonly #prior: Float64Array;
  readonly #weights: Float64Array;
  readonly #squaredGradients: Float64Array;
  readonly #sparse = new SparseWeights();
  readonly #options: ModelOptions;
  #examples = 0;

  constructor(prior: ArrayLike<number>, options: ModelOptions = DEFAULT_MODEL_OPTIONS) {
    this.#prior = Float64Array.from(prior);
    this.#weights = Float64Array.from(prior);
    this.#squaredGradients = new Float64Array(this.#prior.length).fill(1);
    this.#options = options;
  }

  /** The sparse weights as they stand (copy them to freeze them). */
  get sparseWeights(): SparseWeights {
    return this.#sparse;
  }

  get examples(): number {
    return this.#examples;
  }

  /** The weights as they stand (a view: copy it to freeze it). */
  get weights(): Float64Array {
    return this.#weights;
  }

  /** w·x + Σ sparse weights of the tokens: the model's log-odds that the page is relevant. */
  score(x: ArrayLike<number>, tokens: ArrayLike<number>, weights: ArrayLike<number> = this.#weights, sparse: SparseWeightReader = this.#sparse): number {
    let z = 0;
    for (let j = 0; j < this.#weights.length; j++) z += (weights[j] as number) * (x[j] as number);
    return z + sparseSum(tokens, sparse);
  }

  /**
   * Moves the dense weights to the mean of this model's and `others'`, each counted by its
   * examples: models learnt apart (a cluster's workers) come to one scale. The sparse
   * weights of URL words stay this model's own.
   */
  blend(others: readonly { weights: ArrayLike<number>; examples: number }[]): void {
    const total = others.reduce((n, o) => n + o.examples, this.#examples);
    if (total === this.#examples) return;
    for (let j = 0; j < this.#weights.length; j++) {
      let sum = (this.#weights[j] as number) * this.#examples;
      for (const other of others) sum += (other.weights[j] as number) * other.examples;
      this.#weights[j] = sum / total;
    }
  }

  /** One example with target y in [0, 1], counted `weight` times. */
  learn(x: ArrayLike<number>, tokens: ArrayLike<number>, y: number, weight = 1): void {
    const error = sigmoid(this.score(x, tokens)) - y;
    const { learningRate, priorStrength } = this.#options;
    for (let j = 0; j < this.#weights.length; j++) {
      const w = this.#weights[j] as number;
      const g = weight * (error * (x[j] as number) + priorStrength * (w - (this.#prior[j] as number)));
      if (g === 0) continue;
      this.#squaredGradients[j]! += g * g;
      this.#weights[j] = w - (learningRate * g) / Math.sqrt(this.#squaredGradients[j] as number);
    }
    for (let k = 0; k < tokens.length; k++) {
      const i = this.#sparse.claim(tokens[k] as number);
      const w = this.#sparse.weightAt(i);
      const g = weight * (error + priorStrength * w);
      this.#sparse.setWeightAt(i, w - (learningRate * g) / Math.sqrt(this.#sparse.addSquaredAt(i, g * g)));
    }
    this.#examples++;
  }
}

export function sparseSum(tokens: ArrayLike<number>, sparse: SparseWeightReader): number {
  let z = 0;
  for (let k = 0; k < tokens.length; k++) z += sparse.weight(tokens[k] as number);
  return z;
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}
