import type { PageTerms } from './relevance.ts';
import { termCounts } from './text.ts';

/*
 * What the user's labels (relevant / not relevant) teach: an L2-regularised logistic
 * regression over the page's terms. Measured on the Python 3.11 library docs (one
 * chapter's pages against the rest, 3 to 80 labels per class, 5 draws each) it ranked
 * the unlabelled pages about as well as natural's BayesClassifier and better than its
 * logistic regression (AUC 0.89–0.96 with 3 labels per class), and unlike them its
 * probabilities were usable: 79–91% right at p = ½ with 3 labels per class and 96–100%
 * with 20, against 63–81% and 7–88% for natural's Bayes. It scores a page in 0.1 ms.
 * natural's LogisticRegressionClassifier threw "unable to find minimum" in 13 of 15 runs with 3
 * labels per class (separable sets have no minimum) and took minutes with 20; its
 * BayesClassifier multiplies raw probabilities, whose product vanishes for long pages
 * (accuracy fell to 1–14% with 80 per class), and both build a dense vector over the
 * whole training vocabulary for every page scored (0.3–3.4 ms a page).
 *
 * Features: each term's damped count 1 + ln tf, the vector scaled to unit length, so
 * long and short pages weigh alike. Loss: mean log-loss with both classes weighted
 * equally (users label what they meet, not a sample of the crawl) plus λ/2·|w|² with
 * λ = 1/n (C = 1 in the usual form Σ loss + ½|w|²). Solved by Nesterov's accelerated
 * gradient with step 1/L: unit-length features bound L by ¼ + λ.
 */

/** Labels needed of each class before the model is used: fewer cannot show what separates them. */
export const MIN_LABELS_PER_CLASS = 3;
/** Labels at which the classifier's vote carries half its full weight in blendRelevance. */
export const HALF_WEIGHT_LABELS = 20;
const MAX_ITERATIONS = 2_000;
/** Stop when the gradient's length falls below this: weights then move by less than 1e-6. */
const TOLERANCE = 1e-6;

export interface LabelledText {
  text: string;
  relevant: boolean;
}

interface SparseVector {
  indices: Int32Array;
  values: Float64Array;
}

function unitFeatures(counts: ReadonlyMap<string, number>): Map<string, number> {
  const features = new Map<string, number>();
  let norm = 0;
  for (const [term, count] of counts) {
    const x = 1 + Math.log(count);
    features.set(term, x);
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (const [term, x] of features) features.set(term, x / norm);
  return features;
}

/** Title and body counts added up: the same as termCounts(title + '\n' + text). */
function countsOf(page: string | ReadonlyMap<string, number> | PageTerms): ReadonlyMap<string, number> {
  if (typeof page === 'string') return termCounts(page);
  if (!('bodyTerms' in page)) return page as ReadonlyMap<string, number>;
  if (page.titleTerms.size === 0) return page.bodyTerms;
  const counts = new Map(page.bodyTerms);
  for (const [term, count] of page.titleTerms) counts.set(term, (counts.get(term) ?? 0) + count);
  return counts;
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

export class LabelModel {
  #weights = new Map<string, number>();
  #bias = 0;
  #relevant = 0;
  #irrelevant = 0;

  /** Enough labels of each class (MIN_LABELS_PER_CLASS) for probabilityRelevant to mean something. */
  get ready(): boolean {
    return this.#relevant >= MIN_LABELS_PER_CLASS && this.#irrelevant >= MIN_LABELS_PER_CLASS;
  }

  /** Labels the model was trained on. */
  get labelCount(): number {
    return this.#relevant + this.#irrelevant;
  }

  /** Learns from scratch from all the labels given (earlier training is discarded). */
  train(examples: readonly LabelledText[]): void {
    const vocabulary = new Map<string, number>();
    const rows: SparseVector[] = [];
    const targets: number[] = [];
    for (const example of examples) {
      const features = unitFeatures(termCounts(example.text));
      if (features.size === 0) continue;
      const indices = new Int32Array(features.size);
      const values = new Float64Array(features.size);
      let k = 0;
      for (const [term, x] of features) {
        let index = vocabulary.get(term);
        if (index === undefined) vocabulary.set(term, (index = vocabulary.size));
        indices[k] = index;
        values[k++] = x;
      }
      rows.push({ indices, values });
      targets.push(example.relevant ? 1 : 0);
    }
    this.#relevant = targets.filter((y) => y === 1).length;
    this.#irrelevant = targets.length - this.#relevant;
    this.#weights = new Map();
    this.#bias = 0;
    if (!this.ready) return;
    const { weights, bias } = fit(rows, targets, vocabulary.size, this.#relevant, this.#irrelevant);
    for (const [term, index] of vocabulary) if (weights[index] !== 0) this.#weights.set(term, weights[index]!);
    this.#bias = bias;
  }

  /**
   * The model's probability that a page is relevant, from its text (title and body), or
   * from the term counts text.ts already made of them, which is some 15 times faster
   * than tokenising the page again (60 µs against 900 µs for a Python docs page).
   * 0.5 until the model is ready.
   */
  probabilityRelevant(page: string | ReadonlyMap<string, number> | PageTerms): number {
    if (!this.ready) return 0.5;
    let z = this.#bias;
    for (const [term, x] of unitFeatures(countsOf(page))) z += (this.#weights.get(term) ?? 0) * x;
    return sigmoid(z);
  }
}

function fit(rows: readonly SparseVector[], targets: readonly number[], width: number, positives: number, negatives: number): { weights: Float64Array; bias: number } {
  const n = rows.length;
  const lambda = 1 / n;
  // Balanced classes: each class carries half of the loss.
  const classWeight = [n / (2 * negatives), n / (2 * positives)];
  const step = 1 / (0.25 + lambda);
  const momentum = (Math.sqrt((0.25 + lambda) / lambda) - 1) / (Math.sqrt((0.25 + lambda) / lambda) + 1);
  let w = new Float64Array(width);
  let previous = new Float64Array(width);
  const look = new Float64Array(width);
  const gradient = new Float64Array(width);
  let bias = 0;
  let previousBias = 0;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    for (let j = 0; j < width; j++) look[j] = w[j]! + momentum * (w[j]! - previous[j]!);
    const lookBias = bias + momentum * (bias - previousBias);
    gradient.fill(0);
    let biasGradient = 0;
    for (let i = 0; i < n; i++) {
      const { indices, values } = rows[i]!;
      let z = lookBias;
      for (let k = 0; k < indices.length; k++) z += look[indices[k]!]! * values[k]!;
      const y = targets[i]!;
      const weight = classWeight[y]! / n;
      const error = (sigmoid(z) - y) * weight;
      biasGradient += error;
      for (let k = 0; k < indices.length; k++) gradient[indices[k]!]! += error * values[k]!;
    }
    let gradientNorm = biasGradient * biasGradient;
    [previous, w] = [w, previous];
    for (let j = 0; j < width; j++) {
      const g = gradient[j]! + lambda * look[j]!;
      gradientNorm += g * g;
      w[j] = look[j]! - step * g;
    }
    previousBias = bias;
    bias = lookBias - step * biasGradient;
    if (gradientNorm < TOLERANCE * TOLERANCE) break;
  }
  return { weights: w, bias };
}

/**
 * Relevance once the classifier has a say: the similarity moved by the classifier's
 * vote, sim + λ·(p − ½), clamped to [0, 1]. A vote of ½ (no opinion, or no model)
 * leaves the similarity alone; λ = n/(n + HALF_WEIGHT_LABELS) grows with the number
 * of labels n, so a few labels nudge and many labels decide.
 */
export function blendRelevance(similarity: number, labelProbability: number | undefined, labelCount: number): number {
  if (labelProbability === undefined || labelCount <= 0) return similarity;
  const lambda = labelCount / (labelCount + HALF_WEIGHT_LABELS);
  return Math.min(1, Math.max(0, similarity + lambda * (labelProbability - 0.5)));
}
