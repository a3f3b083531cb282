import type { BrandedId } from '@echo/protocol';
import { cacheEvict } from './cache-hooks.js';

/** An L1 entry of a keyed namespace. Times are Unix ms, like the L2 frame's expiry. */
export interface Entry<T> {
  /** The value; under `frozen`, not yet decoded while `encoded` is set (see read-mode.ts). */
  value: T;
  /**
   * The value's encoding: under `clone`, what each hit decodes afresh; under `frozen`, a written
   * value not yet decoded (the first hit decodes and freezes it, and clears this).
   */
  encoded: string | Buffer | undefined;
  readonly version: BrandedId;
  /** Fresh until this instant; `Infinity` for an entry without expiry. */
  readonly expiresAt: number;
  /** Servable as stale (grace) until this instant; equal to `expiresAt` without grace. */
  readonly graceUntil: number;
  /** When this process admitted it, so rows older than a lost coherence feed can be told apart. */
  readonly admittedAt: number;
  readonly tags: readonly string[];
  /** Set by a read; cleared when the eviction hand passes (the CLOCK second chance). */
  used: boolean;
}

/**
 * A bounded L1 that evicts by recency: CLOCK (second chance), an approximation of LRU that costs a
 * hit one boolean write instead of a reorder. The `Map`'s insertion order is the clock face: when
 * full, the hand walks from the oldest entry, dropping entries past their grace, giving a used entry
 * a second chance (moved to the back, flag cleared) and evicting the first unused one.
 */
export class RecencyL1<T> {
  readonly #rows = new Map<string, Entry<T>>();
  readonly #maxSize: number;
  #evictions = 0;
  #expired = 0;
  /** The table name the `emq.cache.evict` hook reports. */
  readonly #table: string;

  constructor(maxSize: number, table = '') {
    this.#maxSize = maxSize;
    this.#table = table;
  }

  get size(): number {
    return this.#rows.size;
  }

  /** Entries evicted to make room for newer ones. */
  get evictions(): number {
    return this.#evictions;
  }

  /** Entries dropped because their grace had passed (sweeps and the eviction hand). */
  get expired(): number {
    return this.#expired;
  }

  get(key: string): Entry<T> | undefined {
    return this.#rows.get(key);
  }

  /** Inserts or replaces; a newcomer to a full L1 evicts the least recently used entry. */
  set(key: string, entry: Entry<T>, now: number): void {
    if (!this.#rows.delete(key) && this.#rows.size >= this.#maxSize) this.#makeRoom(now);
    this.#rows.set(key, entry);
  }

  delete(key: string): boolean {
    return this.#rows.delete(key);
  }

  clear(): number {
    const n = this.#rows.size;
    this.#rows.clear();
    return n;
  }

  /** Every entry, for the rare whole-L1 walks (tags, clear by version). */
  entries(): IterableIterator<[string, Entry<T>]> {
    return this.#rows.entries();
  }

  /** Drops entries past their grace; answers how many. */
  sweep(now: number): number {
    let n = 0;
    for (const [key, entry] of this.#rows) {
      if (entry.graceUntil <= now) {
        this.#rows.delete(key);
        n++;
      }
    }
    this.#expired += n;
    return n;
  }

  #makeRoom(now: number): void {
    // Two turns of the hand at most: after one, every flag is clear.
    let budget = this.#rows.size * 2;
    for (const [key, entry] of this.#rows) {
      if (budget-- <= 0) break;
      if (entry.graceUntil <= now) {
        this.#rows.delete(key);
        this.#expired++;
        return;
      }
      if (entry.used) {
        entry.used = false;
        this.#rows.delete(key);
        this.#rows.set(key, entry);
        continue;
      }
      this.#rows.delete(key);
      this.#evictions++;
      cacheEvict(this.#table, 1);
      return;
    }
    // Every entry was used since the last pass: evict the oldest.
    const oldest = this.#rows.keys().next();
    if (oldest.done !== true) {
      this.#rows.delete(oldest.value);
      this.#evictions++;
      cacheEvict(this.#table, 1);
    }
  }
}
