import backgroundFile from '../../resources/background-idf.json' with { type: 'json' };

/*
 * The background idf (resources/background-idf.json, built by
 * scripts/build-background-idf.ts from SUBTLEX-US word counts): for each stem,
 * idf = ln(1/p) where p = 1 − exp(−f·L) is the chance that a document of L = 1,000
 * words contains a stem of relative frequency f (Poisson occurrence model). Stems
 * missing from the file take the `unseen` idf: rarer than anything in the list.
 */

interface BackgroundFile {
  unseen: number;
  idf: Record<string, number>;
}

export interface BackgroundIdf {
  /** ln of the chance that a document contains the term, under the background model (= −idf). */
  logDocumentRate(term: string): number;
}

class SubtlexBackground implements BackgroundIdf {
  readonly #logRates: Map<string, number>;
  readonly #unseenLogRate: number;

  constructor(file: BackgroundFile) {
    this.#logRates = new Map();
    for (const [stem, idf] of Object.entries(file.idf)) this.#logRates.set(stem, -idf);
    this.#unseenLogRate = -file.unseen;
  }

  logDocumentRate(term: string): number {
    return this.#logRates.get(term) ?? this.#unseenLogRate;
  }
}

let shared: BackgroundIdf | undefined;

/** The background built from the shipped file, loaded once per process. */
export function backgroundIdf(): BackgroundIdf {
  shared ??= new SubtlexBackground(backgroundFile as BackgroundFile);
  return shared;
}
