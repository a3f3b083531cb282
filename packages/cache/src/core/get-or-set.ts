import type { Flight, Flights } from './single-flight.js';

/** What a face's read step found: the answer, or what its load step needs to run the loader. */
export type LeaseLoaded<R, L> = { readonly answer: R } | { readonly load: L };

/** The counters the handler keeps itself; both faces' counters carry them. */
export interface FlightCounters {
  misses: number;
  coalesced: number;
}

/**
 * A face's fill steps: the strategy the one {@link GetOrSet} handler runs. The handler owns the
 * order (miss, join or start the single flight, read, load) and a face owns what each step sends:
 * a declared table reads its versioned frame with a plain `GET`, runs the spec's loader and writes
 * with `SET … PX` (cache.md §3-§5); a keyed namespace takes its key's lease in the read script, runs
 * the call's factory under its timeouts and writes fenced by the lease. Either face admits what a
 * step produced into its L1 under the running {@link Flight}, so news that reached the fill wins.
 *
 * @typeParam Key the face's key: any string for a namespace, a branded id of the table's kind for a table.
 * @typeParam A a call's arguments: a namespace's factory and options; nothing for a table, whose loader is declared.
 * @typeParam R the answer every waiter of a fill gets.
 * @typeParam L what the read step hands the load step (a namespace's lease token and stale value).
 * @typeParam W what a write carries.
 */
export interface FillSteps<Key extends string, A, R, L, W> {
  readonly counters: FlightCounters;
  readonly flights: Flights<R>;
  /** Reports an L1 miss of `key` beyond its counter (hooks, events). */
  missed(key: Key): void;
  /** What a caller that joins the fill already running gets. */
  joined(running: Promise<R>): Promise<R>;
  /** Step one, the lease-load: reads L2 and answers, or hands over what the load needs. */
  leaseLoad(key: Key, args: A, flight: Flight): Promise<LeaseLoaded<R, L>>;
  /** Step two, the factory-run: runs the loader or factory; what it answers goes through {@link writeEntry}. */
  runFactory(key: Key, args: A, load: L, flight: Flight): Promise<R>;
  /** Step three, the write-entry: L2, then L1 under `flight` (`null` for a plain write, which no fill owns). */
  writeEntry(key: Key, write: W, flight: Flight | null): Promise<void>;
}

/**
 * The get-or-set handler of both faces (after bentocache's two-tier handler): an L1 miss joins the
 * fill already running in this process for its key, or starts one that runs the face's lease-load
 * and, when L2 had no answer, its factory-run, whose answer goes through the face's write-entry.
 * Every waiter settles with the same answer or the same error; the caller has checked its arguments
 * and L1 first.
 */
export class GetOrSet<Key extends string, A, R, L, W> {
  readonly #steps: FillSteps<Key, A, R, L, W>;

  constructor(steps: FillSteps<Key, A, R, L, W>) {
    this.#steps = steps;
  }

  /** The answer for an L1 miss of `key`. */
  handle(key: Key, args: A): Promise<R> {
    const s = this.#steps;
    s.counters.misses++;
    s.missed(key);
    const running = s.flights.join(key);
    if (running !== undefined) {
      s.counters.coalesced++;
      return s.joined(running);
    }
    return s.flights.start(key, (flight) => this.#fill(key, args, flight));
  }

  /** A plain write: both tiers, outside any fill. */
  write(key: Key, write: W): Promise<void> {
    return this.#steps.writeEntry(key, write, null);
  }

  async #fill(key: Key, args: A, flight: Flight): Promise<R> {
    const read = await this.#steps.leaseLoad(key, args, flight);
    return 'answer' in read ? read.answer : this.#steps.runFactory(key, args, read.load, flight);
  }
}
