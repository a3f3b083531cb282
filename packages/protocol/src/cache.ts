/**
 * `@echo/protocol/cache`: the cache's contract on the shared substrate. Its keys (tables, entries,
 * tags, leases, the coherence log and channel), its typed transitions (read, fenced write, release,
 * delete, tag delete, clear, pull, expire, coherence drop), the entry frame and the coherence-entry
 * format, and client-side tracking. The cache imports this subpath only.
 *
 * @packageDocumentation
 */
export * from './substrate.js';
export * from './keys/cache-keys.js';
export * as transitions from './transitions/cache.js';
export * as reads from './contract/cache/reads.js';
export * as writes from './contract/cache/writes.js';
export { ENTRY_FRAME_HEADER, encodeEntryFrame, parseEntryFrame, type EntryFrame } from './formats/entry-frame.js';
export { parseCoherenceEntry, type CoherenceEntry, type CoherenceOp } from './formats/coherence-entry.js';
export { INVALIDATE_CHANNEL, openTracking, type Tracking, type TrackingEvents, type TrackingOptions } from './connector/tracking.js';
