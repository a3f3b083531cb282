import type { BrandedId } from '@echo/protocol';
import type { Counters } from './stats.js';

/** An L1 row (cache.md §2). `expiresAt` is on the table's monotonic clock. */
export interface Row<T> {
  readonly value: T;
  readonly version: BrandedId;
  readonly expiresAt: number;
}

/**
 * The in-process tier: a `Map` bounded by `maxSize`. It never evicts a live row to make room; a
 * full table skips the insert instead (cache.md §6), so memory is bounded by the declaration and a
 * hot working set larger than it degrades to pass-through rather than thrashing.
 */
export class L1<T> {
  readonly #rows = new Map<string, Row<T>>();
  readonly #maxSize: number;
  readonly #counters: Counters;

  constructor(maxSize: number, counters: Counters) {
    this.#maxSize = maxSize;
    this.#counters = counters;
  }

  /** How many rows are held, expired ones not yet swept included. */
  get size(): number {
    return this.#rows.size;
  }

  /** The row for `id`, live or not. */
  get(id: string): Row<T> | undefined {
    return this.#rows.get(id);
  }

  /**
   * Inserts or replaces a row. Replacing never grows the map, so it is always allowed: refusing it
   * would leave an older value in place. A new row goes in if there is room, or if reclaiming
   * expired rows made some; otherwise it is skipped and counted.
   *
   * @returns whether the row is now in L1.
   */
  insert(id: string, row: Row<T>, now: number): boolean {
    if (this.#rows.has(id) || this.#rows.size < this.#maxSize || this.sweep(now, false) > 0) {
      this.#rows.set(id, row);
      return true;
    }
    this.#counters.fullSkips++;
    return false;
  }

  /** Deletes one row; answers whether there was one. */
  delete(id: string): boolean {
    return this.#rows.delete(id);
  }

  /** Deletes every row; answers how many there were. */
  clear(): number {
    const n = this.#rows.size;
    this.#rows.clear();
    return n;
  }

  /**
   * Deletes rows with `expiresAt < now`, counting them as `swept`; a scheduled sweep also counts
   * one `sweeps`. Deleting while iterating a `Map` is safe: entries not yet visited are still seen.
   */
  sweep(now: number, scheduled = true): number {
    let swept = 0;
    for (const [id, row] of this.#rows) {
      if (row.expiresAt < now) {
        this.#rows.delete(id);
        swept++;
      }
    }
    this.#counters.swept += swept;
    if (scheduled) this.#counters.sweeps++;
    return swept;
  }
}
