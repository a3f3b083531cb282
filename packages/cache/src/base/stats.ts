/**
 * The counters of cache.md §8, camel-cased as elsewhere in Echo (`l2Hits` is the spec's `l2_hits`,
 * `fullSkips` its `full_skips`, `cohApplied`/`cohStale` its `coh_applied`/`coh_stale`).
 */
export interface Counters {
  /** Reads answered from a live L1 row. */
  hits: number;
  /** Reads that found no live L1 row, coalesced ones included. */
  misses: number;
  /** Loader calls that succeeded and were written to L2. */
  fills: number;
  /** Fills answered by an L2 frame instead of the loader. */
  l2Hits: number;
  /** Misses that joined a fill already running instead of starting one. */
  coalesced: number;
  /** Expired L1 rows deleted by the sweeper or reclaimed by a full insert. */
  swept: number;
  /** Inserts skipped because L1 was full of live rows. */
  fullSkips: number;
  /** Sweeper runs. */
  sweeps: number;
  /** Coherence that deleted an older L1 row. */
  cohApplied: number;
  /** Coherence that found no row, or a row that was not older. */
  cohStale: number;
}

/** Broadcast lane counters (cache.md §7.5): the ring's, plus messages refused before it. */
export interface BroadcastStats {
  readonly lane: 'broadcast';
  /** Messages pushed into the ring. */
  readonly published: number;
  /** Messages drained from the ring and applied (§7.3). */
  readonly applied: number;
  /** Messages dropped because the ring was full. */
  readonly dropped: number;
  /** Times an idle applier was woken. */
  readonly wakes: number;
  /** Drain batches run. */
  readonly batches: number;
  /** Messages dropped because they did not parse (§7.1) or named an id of another kind. */
  readonly malformed: number;
  /** Messages waiting in the ring now. */
  readonly pending: number;
}

/** Tracking lane counters. */
export interface TrackingStats {
  readonly lane: 'tracking';
  /** Times tracking was armed: 1 at start, plus one per reconnect. */
  readonly arms: number;
  /** Invalidation messages received, each naming one or more keys. */
  readonly invalidations: number;
  /** Times the whole of L1 was flushed: a nil invalidation, a lost connection, a re-arm. */
  readonly flushes: number;
  /** Invalidated keys that did not name an id of this table. */
  readonly malformed: number;
  /** Whether tracking is armed now; while it is not, L1 takes no rows. */
  readonly armed: boolean;
}

/** The stats of one coherence lane. */
export type LaneStats = BroadcastStats | TrackingStats;

/** A snapshot of a table's counters, its live L1 `size`, and its lane's counters if it has one. */
export interface CacheStats extends Readonly<Counters> {
  readonly size: number;
  readonly lane: LaneStats | null;
}

/** Fresh zeroed counters. */
export function emptyCounters(): Counters {
  return { hits: 0, misses: 0, fills: 0, l2Hits: 0, coalesced: 0, swept: 0, fullSkips: 0, sweeps: 0, cohApplied: 0, cohStale: 0 };
}
