import { hooks } from '@echo/protocol/cache';

/**
* Both faces' side of the `emq.cache.*` telemetry hooks. Each returns at once when its
 * hook has no listener, so the hit path stays allocation-free.
 */

const cache = hooks.cache;

/** Emits `emq.cache.hit` for a read answered from `tier`. */
export function cacheHit(table: string, key: string, tier: 'l1' | 'l2'): void {
  if (cache.hit.hasSubscribers) cache.hit.publish({ table, key, tier });
}

/** Emits `emq.cache.miss` for a read that found nothing fresh in L1. */
export function cacheMiss(table: string, key: string): void {
  if (cache.miss.hasSubscribers) cache.miss.publish({ table, key });
}

/** Emits `emq.cache.fill` for a loaded and stored value. */
export function cacheFill(table: string, key: string, durationMs: number): void {
  if (cache.fill.hasSubscribers) cache.fill.publish({ table, key, durationMs });
}

/** Emits `emq.cache.stale` for a value served past its freshness. */
export function cacheStale(table: string, key: string): void {
  if (cache.stale.hasSubscribers) cache.stale.publish({ table, key });
}

/** Emits `emq.cache.evict` for entries L1 dropped for room. */
export function cacheEvict(table: string, count: number): void {
  if (cache.evict.hasSubscribers) cache.evict.publish({ table, count });
}
