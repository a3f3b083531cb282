import type { BrandedId } from '@echo/protocol/cache';
import type { LaneStats } from '../base/stats.js';

/** What a coherence lane may do to its table's L1. */
export interface CoherenceTarget {
  readonly name: string;
  readonly kind: string;
  /**
   * Applies a versioned message (cache.md §7.3).
   *
   * @throws KindError when `id` is not of the table's kind.
   */
  applyCoherence(id: BrandedId, version: BrandedId): 'applied' | 'stale';
  /** Drops one id without a version (tracking); answers whether a row was dropped. */
  evict(id: string): boolean;
  /** Drops every row, and spoils every running fill. */
  flush(): void;
}

/**
 * A running coherence source: how one face's L1 hears about writes elsewhere. Three implementations:
 * the keyed namespaces' log reader (log.ts) and the declared tables' broadcast and tracking lanes.
 */
export interface CoherenceSource<S> {
  /**
   * Whether L1 may be relied on now. A source that has lost its feed cannot promise to hear about
   * changes, so reads go through to L2 (and a table takes no rows) until the feed is back.
   */
  readonly trusted: boolean;
  stats(): S;
  /** Stops listening and releases the source's connection. Idempotent. */
  stop(): Promise<void>;
}

/** A declared table's lane (broadcast or tracking). */
export type CoherenceLane = CoherenceSource<LaneStats>;
