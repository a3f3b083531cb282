import { cacheEvict } from './cache-hooks.js';
import { DeathOrder } from './death-order.js';

/**
 * What a full L1 does with a newcomer:
 * - `skip`: nothing live is evicted; the newcomer is skipped and counted (`fullSkips`), once expired
 *   rows have been reclaimed. Memory is bounded by the declaration, and a hot set larger than it
 *   degrades to pass-through instead of thrashing (declared tables, cache.md §6).
 * - `clock`: the least recently used row goes, by CLOCK (second chance): an approximation of LRU that
 *   costs a hit one boolean write instead of a reorder (keyed namespaces).
 */
export type Eviction = 'skip' | 'clock';

/** What `clock` eviction reads and writes on a row. */
interface Recency {
  used: boolean;
}

/** How an L1 is bounded and when its rows are dead. */
export interface L1Settings<R> {
  readonly maxSize: number;
  readonly eviction: Eviction;
  /** True when `row` can no longer be served at `now` and may be reclaimed. A method, so an L1 of a wider row type accepts it. */
  dead(row: R, now: number): boolean;
  /**
   * When `row` dies, exactly: `dead(row, now)` is false before it and true after it (a row's expiry,
   * an entry's end of grace; `Infinity` for a row that never dies). The death order holds this
   * instant, so a row must not change it in place: a replacement is a new row.
   */
  deadFrom(row: R): number;
  /** The name the `emq.cache.evict` hook reports. */
  readonly name: string;
}

/**
 * The in-process tier of both faces: a `Map` bounded by `maxSize`, under one eviction setting. Under
 * `clock` the `Map`'s insertion order is the clock face: the hand walks from the oldest row, dropping
 * dead rows, giving a used row a second chance (moved to the back, flag cleared) and evicting the
 * first unused one. Rows must then carry a `used` flag, which hits set.
 */
export class L1<R extends object> {
  readonly #rows = new Map<string, R>();
  readonly #settings: L1Settings<R>;
  /**
   * The clock hand (`clock`): where the last walk stopped. A `Map` iterator stays valid across
   * inserts, deletes and the table's rehashes, so each walk resumes here instead of starting again
   * from the oldest row: from the start, every walk stepped over the slots of all the rows evicted
   * since the table last compacted, and an insert into a full L1 of 100,000 rows measured 9-44 µs,
   * growing as it churned (now 0.7-2.5). Dropped once L1 is under half full: an iterator holds the
   * tables its `Map` has shrunk out of until it moves, and refilling compacts the table anyway.
   */
  #hand: IterableIterator<[string, R]> | undefined;
  /**
   * Under `skip`, the keys in the order their rows die: reclaiming takes the dead ones from the front, so a
   * newcomer to a full L1 costs O(log n), not a walk of every row. Walking cost O(maxSize) per
   * newcomer: a full table, which the spec makes a pass-through, spent 0.9-1.5 ms of CPU on each miss
   * at 100,000 rows, whether it found a dead row or not.
   */
  readonly #deaths = new DeathOrder();
  #evictions = 0;
  #expired = 0;
  #sweeps = 0;
  #fullSkips = 0;

  constructor(settings: L1Settings<R>) {
    this.#settings = settings;
  }

  /** How many rows are held, dead ones not yet swept included. */
  get size(): number {
    return this.#rows.size;
  }

  /** Rows evicted to make room (`clock`). */
  get evictions(): number {
    return this.#evictions;
  }

  /** Dead rows deleted by a sweep or reclaimed to make room. */
  get expired(): number {
    return this.#expired;
  }

  /** Scheduled sweeps run. */
  get sweeps(): number {
    return this.#sweeps;
  }

  /** Newcomers skipped because L1 was full of live rows (`skip`). */
  get fullSkips(): number {
    return this.#fullSkips;
  }

  /** The row for `key`, live or not. */
  get(key: string): R | undefined {
    return this.#rows.get(key);
  }

  /**
   * Inserts or replaces a row. Replacing never grows the map, so it is always allowed: refusing it
   * would leave an older value in place. A newcomer to a full L1 goes in by the eviction setting.
   *
   * @returns whether the row is now in L1.
   */
  set(key: string, row: R, now: number): boolean {
    if (this.#settings.eviction === 'clock') {
      // Delete first, so a replaced row moves to the back of the clock face.
      if (!this.#rows.delete(key) && this.#rows.size >= this.#settings.maxSize) this.#makeRoom(now);
      this.#rows.set(key, row);
      return true;
    }
    if (this.#rows.has(key) || this.#rows.size < this.#settings.maxSize || (now >= this.#deaths.first && this.#reclaimDead(now) > 0)) {
      this.#rows.set(key, row);
      this.#deaths.push(this.#deathOf(row), key);
      this.#compactDeaths();
      return true;
    }
    this.#fullSkips++;
    return false;
  }

  /** Deletes one row; answers whether there was one. */
  delete(key: string): boolean {
    const had = this.#rows.delete(key);
    this.#dropHand();
    this.#compactDeaths();
    return had;
  }

  /** Deletes every row; answers how many there were. */
  clear(): number {
    const n = this.#rows.size;
    this.#rows.clear();
    this.#hand = undefined;
    this.#deaths.clear();
    return n;
  }

  /** Every row, for the rare whole-L1 walks (tags, a clear by version). */
  entries(): IterableIterator<[string, R]> {
    return this.#rows.entries();
  }

  /** The scheduled sweep: deletes dead rows and answers how many. */
  sweep(now: number): number {
    this.#sweeps++;
    return this.#settings.eviction === 'skip' ? this.#reclaimDead(now) : this.#reclaim(now);
  }

  /** Deletes dead rows (`clock`). Deleting while iterating a `Map` is safe: entries not yet visited are still seen. */
  #reclaim(now: number): number {
    let n = 0;
    for (const [key, row] of this.#rows) {
      if (this.#settings.dead(row, now)) {
        this.#rows.delete(key);
        n++;
      }
    }
    this.#expired += n;
    this.#dropHand();
    return n;
  }

  /**
   * Deletes dead rows (`skip`), earliest first: the dead rows are the front of the death order, so
   * it stops at the first live one. An entry whose key no longer holds a row dying at its instant
   * (replaced, deleted) is dropped on the way.
   */
  #reclaimDead(now: number): number {
    let n = 0;
    while (this.#deaths.size > 0) {
      const key = this.#deaths.peek();
      const row = this.#rows.get(key);
      // The entry is the held row's only if that row dies at the entry's instant; else it is a replaced or deleted row's.
      if (row !== undefined && this.#deathOf(row) === this.#deaths.first) {
        if (!this.#settings.dead(row, now)) break;
        this.#rows.delete(key);
        n++;
      }
      this.#deaths.pop();
    }
    this.#expired += n;
    return n;
  }

  /** Rebuilds the death order from the live rows once entries of replaced or deleted rows outnumber them. */
  #compactDeaths(): void {
    if (this.#deaths.size > 2 * this.#rows.size + 64) this.#deaths.rebuild(this.#rows.entries(), (row) => this.#deathOf(row));
  }

  /** {@link L1Settings.deadFrom}, with a row whose instant is not a number (an injected clock's NaN) never dying, as `dead` says of it: a NaN in the heap would stop every reclaim. */
  #deathOf(row: R): number {
    const at = this.#settings.deadFrom(row);
    return Number.isNaN(at) ? Infinity : at;
  }

  #dropHand(): void {
    if (this.#rows.size * 2 < this.#settings.maxSize) this.#hand = undefined;
  }

  #makeRoom(now: number): void {
    // Two turns of the hand at most: after one, every flag is clear.
    for (let budget = this.#rows.size * 2; budget > 0; budget--) {
      const at = this.#turn();
      if (at === undefined) return;
      const [key, row] = at;
      if (this.#settings.dead(row, now)) {
        this.#rows.delete(key);
        this.#expired++;
        return;
      }
      const recency = row as R & Recency;
      if (recency.used) {
        // A second chance: to the back of the face, where the hand comes to it again last.
        recency.used = false;
        this.#rows.delete(key);
        this.#rows.set(key, row);
        continue;
      }
      this.#evict(key);
      return;
    }
    // Every row was used since the last pass: evict the one under the hand.
    const at = this.#turn();
    if (at !== undefined) this.#evict(at[0]);
  }

  /** The row under the hand, the hand then one step on; past the newest row it goes back to the oldest. */
  #turn(): [string, R] | undefined {
    let step = this.#hand?.next();
    if (step === undefined || step.done === true) {
      this.#hand = this.#rows.entries();
      step = this.#hand.next();
    }
    return step.done === true ? undefined : step.value;
  }

  #evict(key: string): void {
    this.#rows.delete(key);
    this.#evictions++;
    cacheEvict(this.#settings.name, 1);
  }
}
