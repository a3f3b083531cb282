/**
 * `@echo/cache`: the EchoMQ cache, one core with two faces. Declared tables (the spec's face,
 * cache.md; also the entry point `@echo/cache/tables`): cache-aside reads with one fill per herd of
 * misses, L2 frames `version ++ value` under `ecc:{<table>}:<id>`, jittered expiry, a bounded L1 that
 * degrades to pass-through, and coherence by newer-wins version messages over a broadcast channel or
 * server-assisted tracking. Keyed namespaces ([TS]): any string key, grace, tags, and one load per
 * key across processes.
 *
 * @packageDocumentation
 */
export * from './tables.js';
export { NamespaceOptionsError } from './base/errors.js';
export { Namespace } from './keyed/namespace.js';
export type { CacheIf, DefaultFactory, Factory, FactoryContext, GetOptions, GetOrSetOptions, NamespaceOptions, NoOptions, Timeouts, WriteOptions } from './keyed/options.js';
export type { KeyedCounters, KeyedRead, KeyedSource, NamespaceEvents, NamespaceStats } from './keyed/events.js';
export type { LogStats } from './coherence/log.js';
export type { OutageOptions, BreakerState } from './l2/breaker.js';
export { FactoryTimeoutError, L2UnavailableError } from './base/errors.js';
export { READ_MODES, type ReadMode } from './keyed/read-mode.js';
