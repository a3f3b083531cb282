import type { BrandedId } from '@echo/protocol';
import type { LaneStats } from '../stats.js';

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

/** A running coherence lane. */
export interface CoherenceLane {
  /**
   * Whether L1 may take rows now. A lane that has lost its feed cannot promise to hear about
   * changes, so the table reads through to L2 until the feed is back.
   */
  readonly admitting: boolean;
  stats(): LaneStats;
  /** Stops listening and releases the lane's connection. Idempotent. */
  stop(): Promise<void>;
}
