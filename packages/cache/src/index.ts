/**
 * `@echo/cache`: declared two-tier near-cache tables for EchoMQ. Cache-aside reads with one fill per
 * herd of misses, L2 frames `version ++ value` under `ecc:{<table>}:<id>`, jittered expiry, a
 * bounded L1 that degrades to pass-through, and coherence by newer-wins version messages over a
 * broadcast channel or server-assisted tracking.
 *
 * @packageDocumentation
 */
export { Cache, type CacheOpenOptions, type CacheOptions } from './cache.js';
export { Table, type Fetched, type Source } from './table.js';
export {
  SPEC_DEFAULTS,
  type Coherence,
  type Loader,
  type TableSettings,
  type TableSpec,
} from './spec.js';
export { Versioned, versioned } from './versioned.js';
export { bufferCodec, stringCodec, type CacheCodec } from './codec.js';
export type { Row } from './core/rows.js';
export type { BroadcastStats, CacheStats, Counters, LaneStats, TrackingStats } from './stats.js';
export { CacheExistsError, CorruptL2FrameError, FlightCrashedError, NamespaceOptionsError, NoSuchCacheError, TrackingArmError } from './errors.js';
export { Namespace } from './keyed/namespace.js';
export type { CacheIf, Factory, FactoryContext, GetOptions, GetOrSetOptions, NamespaceOptions, NoOptions, Timeouts, WriteOptions } from './keyed/options.js';
export type { KeyedCounters, KeyedRead, KeyedSource, NamespaceEvents, NamespaceStats } from './keyed/events.js';
export type { LogStats } from './coherence/log.js';
export type { OutageOptions, BreakerState } from './l2/breaker.js';
export { FactoryTimeoutError, L2UnavailableError } from './errors.js';
export { READ_MODES, type ReadMode } from './keyed/read-mode.js';
