import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ResponseReader } from '../parse/response-reader.ts';
import { SharedRendering } from '../render/shared-rendering.ts';
import { ClusterKeys } from './cluster-keys.ts';
import { changedLabels, type ClusterLabel } from './cluster-labels.ts';
import { clusterState, loadCluster, type ClusterDefinition, type ClusterState } from './cluster-definition.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { LinkStreams, linkLimitsOf } from './link-streams.ts';
import { LinkTraffic } from './link-traffic.ts';
import { PartitionLeases } from './partition-leases.ts';
import { PartitionMap } from './partition.ts';
import { describeDamage, foundBy, isKeyDamage, type KeyDamage } from './redis-damage.ts';
import { ReportThrottle } from './report-throttle.ts';
import { linksHeldBy, WorkerRegistry, type WorkerStatus } from './worker-registry.ts';
import { SharedBudget } from './shared-budget.ts';
import { SharedJudging } from './shared-judging.ts';
import { WorkerRequests } from './worker-requests.ts';
import { CrawlCutoff, mergeTopBuckets } from './crawl-cutoff.ts';
import { SharedLinkModel } from './shared-link-model.ts';
import { createLinkModel } from '../ordering/focused/focused.ts';
import type { OnlineLogistic } from '../ordering/focused/online-model.ts';
import { RefreshWork } from './refresh-work.ts';
import { ShardPool, type ShardTime } from './shard-pool.ts';
import { shardTemplate } from './shard-template.ts';

/*
 * A cluster worker: leases its share of the partitions, runs a shard (today's engine) for
 * each partition that has work, moves links between partitions through Redis, and obeys the
 * crawl's state. Everything is driven by one loop of short ticks, so the order of what it
 * does with Redis is easy to follow; a watchdog beside it stops dispatching when the leases
 * could not be renewed in time, even while that loop waits on a Redis that went away.
 */

const TICK_MS = 100;
const CONTROL_EVERY_MS = 500;
/** How long a worker that joins waits before it takes partitions, so that workers started together share them from the start. */
const JOIN_SETTLE_MS = 500;
const STATUS_EVERY_MS = 1000;
/** How often the workers' best waiting priorities are exchanged for the crawl-wide cut-off (crawl-cutoff.ts). */
const CUTOFF_EVERY_MS = 250;
/** A problem that comes back (a damaged key, a refused command) is said at most this often. */
const REPORT_EVERY_MS = 60_000;
/** A partition held up by a damaged key is left alone this long before the worker tries it again. */
const SET_ASIDE_MS = 30_000;

export interface WorkerOptions {
  redis: Redis;
  name: string;
  dir: string;
  /**
   * Where this worker's shards live, as other workers must tell it apart: by default its
   * machine and data directory. Workers that share a volume give the same name.
   */
  home?: string;
  /** A line of news for the user (joined, took partitions, Redis away…). */
  log: (line: string) => void;
  /** Parse workers (default: one per spare core). */
  parseWorkers?: number;
  /** How long a shard idles before it is closed (default: shard-pool.ts DORMANT_AFTER_MS). */
  dormantAfterMs?: number;
}

export type WorkerEnd = 'finished' | 'stopped' | 'left';


export class ClusterWorker {
  readonly id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #dir: string;
  readonly #home: string;
  readonly #log: (line: string) => void;
  readonly #parseWorkers: number | undefined;
  readonly #dormantAfterMs: number | undefined;
  readonly #partitions = new PartitionMap();
  readonly #throttle = new ReportThrottle(REPORT_EVERY_MS);
  #definition: ClusterDefinition | undefined;
  /** The leases, the shard pool and the link traffic: made when the definition is read. */
  #keeper!: LeaseKeeper;
  #pool: ShardPool | undefined;
  #traffic!: LinkTraffic;
  /** The worker's part of a cluster's refresh (`forager refresh --cluster`). */
  #refreshWork!: RefreshWork;
  readonly #judging: SharedJudging;
  readonly #cutoff: CrawlCutoff;
  readonly #sharedModel: SharedLinkModel;
  /** The focused ordering's link model of this worker's shards (none for other strategies). */
  #linkModel: OnlineLogistic | undefined;
  #requests: WorkerRequests | undefined;
  #registry: WorkerRegistry | undefined;
  #budget: SharedBudget | undefined;
  #parser: ResponseReader | undefined;
  /** One browser for all the shards, started when the first of them renders a page. */
  #rendering: SharedRendering | undefined;
  #state: ClusterState = 'running';
  #leaving = false;
  #abortOnLeave = false;
  #pagesReported = 0;
  /** The workers' statuses at the last look for the crawl's end. */
  #lastLook = new Map<string, WorkerStatus>();
  #statusSeq = 0;
  /** When each part of the loop is next due (epoch ms). */
  readonly #due = { control: 0, balance: 0, reclaim: 0, status: 0, cutoff: 0 };
  #errors = 0;
  #lastError: string | undefined;
  #labelsVersion: string | null = null;
  /** The user's labels as last read, and those applied in this worker's shards. */
  #labels = new Map<string, ClusterLabel>();
  readonly #labelled = new Map<string, ClusterLabel>();
  #startedAt = Date.now();

  constructor(options: WorkerOptions) {
    this.#redis = options.redis;
    this.#keys = new ClusterKeys(options.name);
    this.#dir = options.dir;
    this.#home = options.home ?? `${hostname()}:${resolve(options.dir)}`;
    this.#log = options.log;
    this.#parseWorkers = options.parseWorkers;
    this.#dormantAfterMs = options.dormantAfterMs;
    this.#judging = new SharedJudging(this.#redis, this.#keys, this.id, (damage) => this.#damaged(damage));
    this.#cutoff = new CrawlCutoff(this.#redis, this.#keys, this.id, (damage) => this.#damaged(damage));
    this.#sharedModel = new SharedLinkModel(this.#redis, this.#keys, this.id, (damage) => this.#damaged(damage));
  }

  /** Pages this worker stored in its shards since it started. */
  get pagesStored(): number {
    return this.#pool?.pagesStored ?? 0;
  }

  /** Shards opened so far, and the time spent opening and closing them: a cost per partition, not per page. */
  get shardTime(): Readonly<ShardTime> {
    return this.#pool?.shardTime ?? { opened: 0, openMs: 0, closeMs: 0 };
  }

  /** Leave the crawl: shards close (requests in flight are stored, or with `abort` cancelled), leases are given up. */
  leave(abort = false): void {
    this.#leaving = true;
    this.#abortOnLeave ||= abort;
  }

  async run(): Promise<WorkerEnd> {
    const definition = await loadCluster(this.#redis, this.#keys.name);
    this.#definition = definition;
    mkdirSync(this.#dir, { recursive: true });
    const onDamage = (damage: KeyDamage): void => this.#damaged(damage);
    const streams = new LinkStreams(this.#redis, this.#keys, { limits: linkLimitsOf(definition.settings), onDamage });
    const leases = new PartitionLeases(this.#redis, this.#keys, this.id, definition.leaseMs, onDamage);
    this.#registry = new WorkerRegistry(this.#redis, this.#keys, this.id, definition.leaseMs);
    this.#budget = new SharedBudget(this.#redis, this.#keys, definition.settings.maxPages, { onDamage });
    this.#parser = new ResponseReader(this.#parseWorkers === undefined ? {} : { parseWorkers: this.#parseWorkers });
    this.#rendering = new SharedRendering(definition.settings);
    this.#assemble(definition, streams, leases, shardTemplate());
    this.#log(`worker ${this.id} joined cluster "${definition.name}" (${definition.partitions} partitions, leases of ${definition.leaseMs} ms)`);
    const keeper = this.#keeper;
    const watchdog = setInterval(() => keeper.watch(), Math.max(50, definition.leaseMs / 20));
    this.#due.reclaim = Date.now() + definition.leaseMs;
    await keeper.join();
    // Workers started together see each other before any takes partitions: none takes them all only to hand half on.
    this.#due.balance = Date.now() + JOIN_SETTLE_MS;
    const renewal = keeper.renewalLoop();
    let end: WorkerEnd | undefined;
    try {
      while (end === undefined) {
        try {
          end = await this.#tick(Date.now());
        } catch (err) {
          // Redis refused a command or a shard failed: reported, and the next tick tries again.
          const message = err instanceof Error ? err.message : String(err);
          this.#reportLimited(`tick: ${message}`, `tick: ${message}`);
        }
        if (end === undefined) await sleep(TICK_MS);
      }
    } finally {
      clearInterval(watchdog);
      await this.#shutDown();
      keeper.stop();
      await renewal;
    }
    return end;
  }

  /** The lease keeper, the shard pool and the link traffic, wired to each other and to the worker. */
  #assemble(definition: ClusterDefinition, streams: LinkStreams, leases: PartitionLeases, template: string): void {
    const log = this.#log;
    const report = (problem: string, line: string): void => this.#reportLimited(problem, line);
    const keeper: LeaseKeeper = new LeaseKeeper(
      { registry: this.#registry as WorkerRegistry, leases, streams, keys: this.#keys, definition, id: this.id, home: this.#home, dir: this.#dir },
      {
        log,
        report,
        lost: (partition) => {
          this.#forget(partition);
          const runner = pool.take(partition);
          if (runner !== undefined) pool.closeInBackground(runner, true);
        },
        handOver: async (partition): Promise<number> => {
          const runner = pool.take(partition);
          if (runner !== undefined) await pool.close(runner, false);
          return pool.handOverQuietMs(runner, definition.settings.delayMs);
        },
        forget: (partition) => this.#forget(partition),
        lateChanged: () => this.#applyState(),
      },
    );
    const requests = (this.#requests = new WorkerRequests(definition.settings.concurrency));
    const linkModel = (this.#linkModel = definition.settings.strategy === 'focused' ? createLinkModel() : undefined);
    const pool: ShardPool = new ShardPool(
      { dir: this.#dir, definition, partitions: this.#partitions, parser: this.#parser as ResponseReader, budget: this.#budget as SharedBudget, template, worker: this.id, keeper, requests, linkModel, rendering: this.#rendering as SharedRendering, ...(this.#dormantAfterMs === undefined ? {} : { sleep: { afterMs: this.#dormantAfterMs } }) },
      {
        log,
        report,
        reportNow: (line) => this.#report(line),
        paused: () => this.#paused,
        send: (links) => this.#traffic.send(links),
        fenced: (partition) => this.#forget(partition),
        refreshEnded: (end) => this.#refreshWork.ended(end),
      },
    );
    this.#keeper = keeper;
    this.#pool = pool;
    this.#refreshWork = new RefreshWork({ redis: this.#redis, keys: this.#keys, dir: this.#dir, partitions: definition.partitions, held: () => keeper.held.keys(), pool, onDamage: (damage) => this.#damaged(damage) });
    this.#traffic = new LinkTraffic({ streams, keys: this.#keys, id: this.id, partitions: this.#partitions, keeper, pool }, { log, report });
  }

  get #shards(): ShardPool {
    return this.#pool as ShardPool;
  }

  /** One turn of the loop: the crawl's state, leases, links in and out, status. Returns how the worker ends, if it does. */
  async #tick(now: number): Promise<WorkerEnd | undefined> {
    const due = this.#due;
    if (now >= due.control) {
      due.control = now + CONTROL_EVERY_MS;
      this.#state = await this.#readState();
      if (this.#state === 'finished' || this.#state === 'stopped') return this.#state;
      this.#applyState();
      await this.#readLabels();
    }
    if (this.#leaving) return 'left';
    const leaseMs = (this.#definition as ClusterDefinition).leaseMs;
    const keeper = this.#keeper;
    if (now >= due.balance || keeper.workersChanged) {
      // Twice a lease (a dead worker's partitions wait a lease for its leases to expire anyway),
      // at once when workers join or leave, and every control turn while this worker holds less
      // than its share: partitions given up by others are taken within half a second.
      const share = await keeper.balance();
      due.balance = now + (keeper.held.size < share ? CONTROL_EVERY_MS : leaseMs / 2);
    }
    if (now >= due.reclaim) {
      due.reclaim = now + leaseMs;
      await keeper.reclaimStale();
    }
    const pool = this.#shards;
    pool.newTick();
    pool.reapEndedShards();
    await this.#refreshWork.tick(now);
    pool.openShardsWithWork();
    await this.#traffic.intake();
    await this.#traffic.sendOutboxes();
    if (now >= due.cutoff) {
      due.cutoff = now + CUTOFF_EVERY_MS;
      await this.#exchangeCutoff(now);
    }
    this.#applyLabels();
    if (now >= due.status) {
      due.status = now + STATUS_EVERY_MS;
      this.#tendIdleShards();
      await this.#publishStatus();
      if (await this.#crawlFinished()) {
        await this.#redis.set(this.#keys.state, 'finished');
        this.#log(`cluster "${this.#keys.name}" finished its crawl`);
      }
    }
    return undefined;
  }

  /**
   * The crawl-wide cut-off: the best URLs of this worker's ready hosts out (none while it
   * cannot fetch: paused, or no page of the budget left), the other workers' in.
   */
  async #exchangeCutoff(now: number): Promise<void> {
    const live = this.#keeper.live;
    const window = (this.#definition as ClusterDefinition).settings.concurrency * Math.max(1, live.length);
    const idle = this.#paused || (this.#budget as SharedBudget).spent;
    const own = idle ? undefined : mergeTopBuckets([...this.#shards.runners.values()].map((r) => r.engine.readiness.readyTop(now, window)), window);
    (this.#requests as WorkerRequests).setCutoff(await this.#cutoff.exchange(own, live, window), window);
  }

  /** The crawl's state; while its key is damaged, the state as last read (and the damage said). */
  async #readState(): Promise<ClusterState> {
    try {
      return await clusterState(this.#redis, this.#keys);
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#damaged({
        key: this.#keys.state,
        expected: 'the crawl\'s state: running, paused, stopped or finished',
        found: foundBy(err),
        meanwhile: `this worker goes on as ${this.#state}, and forager cluster pause, resume and stop cannot reach it`,
        repair: `redis-cli SET ${this.#keys.state} running (or paused, stopped)`,
      });
      return this.#state;
    }
  }

  /** The user's labels, when they changed; entries that are not labels are left out and said. */
  async #readLabels(): Promise<void> {
    const changed = await changedLabels(this.#redis, this.#keys, this.#labelsVersion, (damage) => this.#damaged(damage));
    if (changed === undefined) return;
    this.#labelsVersion = changed.version;
    this.#labels = changed.labels;
    if (changed.dropped > 0) {
      this.#reportLimited('labels', `${changed.dropped} label(s) in ${this.#keys.labels} left out, such as ${changed.problem ?? 'one'}; label those pages again with forager cluster label`);
    }
  }

  /**
   * A key of the cluster is damaged: said at a bounded rate (and to the cluster's errors
   * list). The partition it holds up is set aside for a while (its stream is not read, or it
   * is not taken), so that the others go on.
   */
  #damaged(damage: KeyDamage): void {
    const partition = damage.partition;
    if (partition !== undefined) {
      const until = Date.now() + SET_ASIDE_MS;
      const lease = this.#keeper.held.get(partition);
      if (damage.key !== this.#keys.links(partition)) this.#keeper.setAside(partition, until);
      else if (lease !== undefined) lease.streamRetryAt = until;
    }
    this.#reportLimited(`damaged ${damage.key}`, describeDamage(damage, this.#keys.name));
  }

  /** Paused: the crawl's state says so, or the leases are late. */
  get #paused(): boolean {
    return this.#state !== 'running' || this.#keeper.late;
  }

  /** Paused or running, as the crawl's state says; a worker whose leases are late stays paused. */
  #applyState(): void {
    this.#shards.pauseAll(this.#paused);
  }

  /** A partition no longer this worker's. */
  #forget(partition: number): void {
    this.#keeper.drop(partition);
    this.#shards.forget(partition);
  }

  /** Labels not yet applied go to the shards of this worker's partitions that hold their pages. */
  #applyLabels(): void {
    for (const [url, label] of this.#labels) {
      if (this.#labelled.get(url) === label) continue;
      const partition = this.#partitions.of(url);
      const runner = this.#shards.openOrWake(partition);
      if (runner === undefined) continue;
      try {
        if (runner.label(url, label)) this.#labelled.set(url, label);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.#reportLimited(`label of ${url}`, `label of ${url}: ${message}`);
        this.#labelled.set(url, label);
      }
    }
  }

  /** Says a problem unless it was said within REPORT_EVERY_MS, with how many times it came back unsaid. */
  #reportLimited(problem: string, line: string): void {
    const repeats = this.#throttle.note(problem);
    if (repeats === undefined) return;
    this.#report(repeats > 0 ? `${line} (and ${repeats} more time(s) since it was last said)` : line);
  }

  #report(line: string): void {
    this.#errors++;
    this.#lastError = line;
    this.#log(line);
    void this.#redis
      .pipeline()
      .lpush(this.#keys.errors, `${new Date().toISOString()} ${this.id}: ${line}`)
      .ltrim(this.#keys.errors, 0, 49)
      .exec()
      .catch(() => undefined);
  }

  /**
   * Shards idle past DORMANT_AFTER_MS go to sleep; a worker with nothing to do gives its
   * budget allowance back, so that workers with work can spend it.
   */
  #tendIdleShards(): void {
    const idle = this.#shards.tendIdleShards() && this.#traffic.inboxEmpty;
    const budget = this.#budget as SharedBudget;
    if (idle && budget.allowance > 0) void budget.returnAllowance().catch(() => undefined);
  }

  #status(): WorkerStatus {
    let queued = 0;
    let inProgress = 0;
    let idle = this.#traffic.inboxEmpty && this.#shards.settled;
    let outbox = 0;
    for (const runner of this.#shards.runners.values()) {
      queued += runner.engine.stats().queued;
      inProgress += runner.engine.pagesInProgress;
      outbox += runner.outboxSize;
      if (!runner.idle) idle = false;
    }
    const budget = this.#budget as SharedBudget;
    const elapsed = (Date.now() - this.#startedAt) / 1000;
    const pagesStored = this.pagesStored;
    return {
      id: this.id,
      seq: ++this.#statusSeq,
      activity: pagesStored + this.#traffic.linksMoved,
      host: hostname(),
      home: this.#home,
      pid: process.pid,
      startedAt: this.#startedAt,
      partitions: this.#keeper.held.size,
      shards: this.#shards.runners.size,
      pagesStored,
      pagesPerSecond: elapsed > 0 ? pagesStored / elapsed : 0,
      queued,
      inProgress,
      outbox,
      heldBack: this.#traffic.heldBack(),
      idle,
      allowance: budget.allowance,
      budgetSpent: budget.spent,
      paused: this.#paused,
      errors: this.#errors,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  async #publishStatus(): Promise<void> {
    await (this.#registry as WorkerRegistry).publish(this.#status());
    await this.#judging.exchange([...this.#shards.runners.values()].map((runner) => runner.judge), this.#keeper.live);
    if (this.#linkModel !== undefined) await this.#sharedModel.exchange(this.#linkModel, this.#keeper.live);
    const delta = this.pagesStored - this.#pagesReported;
    if (delta > 0) await this.#countPagesStored(delta);
  }

  /** Adds to the crawl's count of pages stored; a damaged counter keeps them for the next time (and is said). */
  async #countPagesStored(delta: number): Promise<void> {
    try {
      await this.#redis.incrby(this.#keys.pagesStored, delta);
      this.#pagesReported += delta;
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#damaged({
        key: this.#keys.pagesStored,
        expected: 'the whole number of pages the workers stored',
        found: foundBy(err),
        meanwhile: 'cluster status shows too few pages stored; the crawl goes on',
        repair: `redis-cli SET ${this.#keys.pagesStored} N, N the pages in the shards`,
      });
    }
  }

  /**
   * Whether the crawl is over: every worker idle (or the budget spent), nothing in flight or
   * waiting in an outbox, every partition held and every stream empty, and all of it still so
   * in a later status of every worker that did nothing meanwhile. With the budget spent, links
   * held for a full stream do not count: they would only be admitted, never fetched, and a
   * partition whose home is down would hold the crawl open for good. A link admitted just
   * before the streams were read shows in its owner's next status, so two looks a status
   * apart cannot both miss it.
   */
  async #crawlFinished(): Promise<boolean> {
    const definition = this.#definition as ClusterDefinition;
    // A crawl that revisits its pages runs until stopped, as a plain crawl with --revisit-after does.
    if (this.#state !== 'running' || definition.settings.revisitAfter !== '' || this.#refreshWork.inProgress) return false;
    const { workers } = await (this.#registry as WorkerRegistry).view();
    const previous = this.#lastLook;
    this.#lastLook = new Map(workers.map((w) => [w.id, w]));
    if (workers.length === 0 || workers.some((w) => w.inProgress > 0 || w.outbox > linksHeldBy(w))) return false;
    const budgetSpent = workers.every((w) => w.allowance === 0) && (await (this.#budget as SharedBudget).handedOut());
    if (!budgetSpent) {
      if (workers.reduce((n, w) => n + w.partitions, 0) !== definition.partitions || !workers.every((w) => w.idle && linksHeldBy(w) === 0)) return false;
      if ((await this.#traffic.backlog(definition.partitions)) > 0) return false;
    }
    return workers.length === previous.size && workers.every((w) => {
      const before = previous.get(w.id);
      return before !== undefined && before.seq < w.seq && before.activity === w.activity;
    });
  }

  async #shutDown(): Promise<void> {
    const keeper = this.#keeper;
    keeper.leaving();
    const delayMs = this.#definition?.settings.delayMs ?? 0;
    const closed = await this.#shards.closeAll(this.#abortOnLeave);
    await this.#publishStatus().catch(() => undefined);
    await keeper.releaseAll((partition) => this.#shards.handOverQuietMs(closed.get(partition), delayMs));
    await this.#budget?.returnAllowance().catch(() => undefined);
    await this.#registry?.leave().catch(() => undefined);
    await this.#judging.leave().catch(() => undefined);
    await this.#cutoff.leave().catch(() => undefined);
    await this.#sharedModel.leave().catch(() => undefined);
    await Promise.all([this.#parser?.close(), this.#rendering?.close()]);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
