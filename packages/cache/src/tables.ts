/**
 * `@echo/cache/tables`: the spec's face of the cache (cache.md), declared two-tier near-cache
 * tables. A table is declared once with its kind, loader and settings; reads go cache-aside with one
 * fill per herd of misses, L2 frames are `version ++ value` under `ecc:{<table>}:<id>`, expiry is
 * jittered, L1 is bounded and degrades to pass-through, and coherence is newer-wins version messages
 * over a broadcast channel or server-assisted tracking.
 *
 * ```ts
 * import { Cache } from '@echo/cache/tables';
 *
 * const cache = await Cache.open({ connect: 'redis://127.0.0.1:6379' });
 * const users = await cache.declare({ name: 'users', kind: 'USR', loader: (id) => db.user(id) });
 * const { value, source } = await users.fetch(userId); // source: 'hit' | 'l2' | 'fill'
 * ```
 *
 * The package root exports all of this as well, with the keyed namespaces ([TS]).
 *
 * @packageDocumentation
 */
export { Cache, type CacheOpenOptions, type CacheOptions } from './cache.js';
export { Table, type Fetched, type Source } from './tables/table.js';
export { SPEC_DEFAULTS, type Coherence, type Loader, type TableSettings, type TableSpec } from './tables/spec.js';
export { Versioned, versioned } from './tables/versioned.js';
export { bufferCodec, stringCodec, type CacheCodec } from './base/codec.js';
export type { Row } from './core/rows.js';
export type { BroadcastStats, CacheStats, Counters, LaneStats, TrackingStats } from './base/stats.js';
export { CacheExistsError, CorruptL2FrameError, FlightCrashedError, NoSuchCacheError, TrackingArmError } from './base/errors.js';
