import type { RankTally } from '../frontier/priority-ranks.ts';
import { RequestSlots } from './request-slots.ts';

/**
 * Who lets a run start its next request. A crawl has its own `concurrency` slots; a cluster
 * worker's shards share the worker's (cluster/worker-requests.ts), where the slot goes to the
 * shard whose best ready URL ranks highest, so that a worker of many shards fetches as one
 * focused crawl would.
 */
export interface RequestGate {
  /** Whether one more request may start with `running` of this run's in flight, before the frontier is asked. */
  hasRoom(running: number): boolean;
  /**
   * Asked with the priority of the URL the next request would fetch (Infinity for a turn a
   * render waits for): false holds it back, and the gate wakes the run when it may go.
   * Undefined when hasRoom alone decides (a run alone on its slots).
   */
  readonly admit: ((priority: number) => boolean) | undefined;
  /** Where the run's frontier also counts its queued URLs' priorities, for admit() to weigh; undefined when admit does not. */
  readonly queuedTally: RankTally | undefined;
  /** Nothing of this run is ready to start now: it no longer asks for a slot. */
  withdraw(): void;
  /** A request (a host's turn) of this run started. */
  started(): void;
  /** A request of this run ended. */
  ended(): void;
  /** Waits for `request`; past the slow threshold it steps aside (request-slots.ts) and `onSlow` hears it. */
  waitFor<T>(request: Promise<T>, onSlow?: () => void): Promise<T>;
}

/** A run's own slots: `concurrency` requests at once, as settings.concurrency says. */
export class OwnRequests implements RequestGate {
  readonly admit = undefined;
  readonly queuedTally = undefined;
  readonly #slots: RequestSlots;

  /** `onStepAside` runs when a request steps aside, so that the run can start another. */
  constructor(concurrency: number, onStepAside: () => void) {
    this.#slots = new RequestSlots(concurrency, onStepAside);
  }

  hasRoom(running: number): boolean {
    return this.#slots.hasRoom(running);
  }

  withdraw(): void {}

  started(): void {}

  ended(): void {}

  waitFor<T>(request: Promise<T>, onSlow?: () => void): Promise<T> {
    return this.#slots.waitFor(request, onSlow);
  }
}
