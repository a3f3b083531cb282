import type { BrandedId, Connection } from '@echo/protocol/cache';

/** Where a fetched value came from (cache.md §3). */
export type Source = 'hit' | 'l2' | 'fill';

/** The answer to a fetch: the value, its version, and which tier produced it. */
export interface Fetched<T> {
  /** The decoded value. */
  readonly value: T;
  /** Which tier answered: L1 (`hit`), an L2 frame (`l2`), or the loader (`fill`). */
  readonly source: Source;
  /** The version of the write that produced the value. */
  readonly version: BrandedId;
}

/** What a table takes from its directory. */
export interface TableRuntime {
  readonly connection: Connection;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /** Uniform in `[0, 1)`, for expiry jitter. */
  readonly random: () => number;
  /** Called once when the table stops, so the directory forgets it. */
  readonly onStop: (name: string) => void;
}
