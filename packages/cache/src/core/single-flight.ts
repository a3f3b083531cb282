import { FlightCrashedError } from '../base/errors.js';

/**
 * One fill in progress and what coherence learned while it ran. A fill's L2 read can race a write
 * elsewhere: the coherence for that write may arrive before the fill's answer does, find no row to
 * drop, and be lost. The fill therefore records such news here and does not put an answer into L1
 * that the news has already made stale (its waiters still get it; they asked before the write landed).
 */
export interface Flight {
  /** The newest version a coherence message named during this fill, if any. */
  newest: string | null;
  /** Set when something unversioned (tracking, invalidate, a flush) said the entry changed. */
  spoiled: boolean;
}

/**
 * Per-key single flight (cache.md §4): the first miss for an id starts the fill, later misses join
 * it, and every waiter settles with the same answer or the same error. The entry leaves the map
 * before the waiters resume, so a retry after an error starts a fresh fill.
 */
export class Flights<R> {
  readonly #running = new Map<string, { readonly flight: Flight; readonly promise: Promise<R> }>();

  /** The fill already running for `id`, to join. */
  join(id: string): Promise<R> | undefined {
    return this.#running.get(id)?.promise;
  }

  /** The state of the fill running for `id`, so coherence can mark it. */
  flight(id: string): Flight | undefined {
    return this.#running.get(id)?.flight;
  }

  /** Every running fill, so a flush can spoil them all. */
  flights(): Flight[] {
    return Array.from(this.#running.values(), (entry) => entry.flight);
  }

  /** How many fills are running. */
  get size(): number {
    return this.#running.size;
  }

  /**
   * Starts the fill for `id`. An `Error` from `task` reaches every waiter as it is; anything else
   * thrown is a crash and becomes a {@link FlightCrashedError}.
   */
  start(id: string, task: (flight: Flight) => Promise<R>): Promise<R> {
    const flight: Flight = { newest: null, spoiled: false };
    const promise = (async () => {
      try {
        return await task(flight);
      } catch (error) {
        throw error instanceof Error ? error : new FlightCrashedError(error);
      } finally {
        this.#running.delete(id);
      }
    })();
    this.#running.set(id, { flight, promise });
    return promise;
  }
}
