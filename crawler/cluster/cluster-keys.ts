/*
 * The Redis keys of one crawl cluster. Every key carries the cluster's name in braces (a
 * hash tag), so a Redis Cluster keeps a crawl's keys in one slot and its Lua scripts may
 * touch several of them.
 */
export class ClusterKeys {
  readonly name: string;
  readonly #prefix: string;

  constructor(name: string) {
    this.name = name;
    this.#prefix = `forager:{${name}}:`;
  }

  /** The crawl's settings and shape, written once by `cluster create` (JSON). */
  get definition(): string {
    return `${this.#prefix}definition`;
  }

  /** running, paused, stopped or finished: what every worker obeys. */
  get state(): string {
    return `${this.#prefix}state`;
  }

  /** Pages of the budget handed out to workers so far. */
  get budgetUsed(): string {
    return `${this.#prefix}budget:used`;
  }

  /** Who holds a partition: "<worker>:<epoch>", with an expiry. */
  lease(partition: number): string {
    return `${this.#prefix}lease:${partition}`;
  }

  /** A partition's lease epoch, raised on every acquisition: it fences the previous holder. */
  epoch(partition: number): string {
    return `${this.#prefix}epoch:${partition}`;
  }

  /**
   * Where a partition's shard lives (a worker's --home: its machine and data directory, or a
   * name the machines sharing a volume agree on): only workers of that home may lease it.
   */
  home(partition: number): string {
    return `${this.#prefix}home:${partition}`;
  }

  /** When a partition handed over by its previous owner may be asked again (politeness across owners). */
  quietUntil(partition: number): string {
    return `${this.#prefix}quiet:${partition}`;
  }

  /** The stream of links and seeds sent to a partition. */
  links(partition: number): string {
    return `${this.#prefix}links:${partition}`;
  }

  /** Pages the workers have stored in the shards, in total. */
  get pagesStored(): string {
    return `${this.#prefix}pages:stored`;
  }

  /** Live workers: a sorted set of worker ids scored by when their heartbeat expires. */
  get workers(): string {
    return `${this.#prefix}workers`;
  }

  /** One worker's last status (JSON), expiring with its heartbeat. */
  workerStatus(worker: string): string {
    return `${this.#prefix}worker:${worker}`;
  }

  /** The best waiting priorities of each worker's shards, for the crawl-wide cut-off (a hash: one field per worker). */
  get topPriorities(): string {
    return `${this.#prefix}top`;
  }

  /** Each worker's link model weights, merged by the others (a hash: one field per worker). */
  get linkModels(): string {
    return `${this.#prefix}model`;
  }

  /** Statistics the judges share across the crawl (a hash: one field per worker). */
  get judgeStatistics(): string {
    return `${this.#prefix}judge`;
  }

  /** The user's labels, by URL (a hash: URL → 1, 0). */
  get labels(): string {
    return `${this.#prefix}labels`;
  }

  /** Rises with every change of the labels: workers read them again when it moves. */
  get labelsVersion(): string {
    return `${this.#prefix}labels:version`;
  }

  /** The refresh the user asked the workers for last (JSON: id, since, maxFetches), kept after it is done for its progress. */
  get refresh(): string {
    return `${this.#prefix}refresh`;
  }

  /** Fetches of the refresh's budget handed out to shards so far (a counter, as the page budget's). */
  get refreshUsed(): string {
    return `${this.#prefix}refresh:used`;
  }

  /** The partitions whose shard has done the refresh (a set): every due page revisited, or the budget spent. */
  get refreshDone(): string {
    return `${this.#prefix}refresh:done`;
  }

  /** The last errors workers reported, newest first (a capped list). */
  get errors(): string {
    return `${this.#prefix}errors`;
  }

  /** Every key of the cluster, for `cluster delete`. */
  get pattern(): string {
    return `${this.#prefix}*`;
  }
}

/** The consumer group of every partition's stream: the partition's owner reads through it. */
export const LINK_GROUP = 'owners';
