import type { LogStats } from '../coherence/log.js';
import type { BrandedId } from '@echo/protocol/cache';

/** Where a keyed read's value came from. */
export type KeyedSource =
  /** A fresh L1 entry. */
  | 'hit'
  /** A fresh L2 entry. */
  | 'l2'
  /** This process ran the factory. */
  | 'fill'
  /** This process ran the factory, which declined to cache its answer (`ctx.skip()` or `cacheIf`). */
  | 'uncached'
  /** Another process ran the factory while this one waited on its lease. */
  | 'peer'
  /** A stale value in grace: a refresh is running, timed out softly, or failed. */
  | 'stale'
  /** L2 unreachable (outage mode): an L1 entry, fresh or in grace. */
  | 'fallback-l1'
  /** L2 unreachable (outage mode): the factory's answer, kept in L1 only. */
  | 'fallback-fill';

/** The events a namespace emits; listen with `namespace.on(event, listener)`. */
export interface NamespaceEvents {
  hit: { readonly key: string };
  miss: { readonly key: string };
  fill: { readonly key: string; readonly version: string; readonly ms: number };
  /** A stale value was served; `reason` says why. */
  stale: { readonly key: string; readonly reason: 'refreshing' | 'soft-timeout' | 'factory-error' | 'outage' };
  /** A coherence log entry dropped L1 entries written before it. */
  coherence: { readonly op: 's' | 'd' | 'c'; readonly keys: readonly string[]; readonly dropped: number };
  /** A factory threw or timed out. */
  'factory-error': { readonly key: string; readonly error: unknown };
  /** An L2 call failed (outage mode: the call fell back). */
  'l2-error': { readonly op: string; readonly error: unknown };
  /** The outage mode's breaker opened or closed. */
  breaker: { readonly state: 'open' | 'closed' };
}

/** A namespace's counters. */
export interface KeyedCounters {
  hits: number;
  misses: number;
  l2Hits: number;
  fills: number;
  /** Fills that lost their lease or met a newer frame, so L2 kept what it had. */
  fillsRefused: number;
  /** Reads served by a value filled in another process after waiting on its lease. */
  peerFills: number;
  /** Misses that joined a load already running in this process. */
  coalesced: number;
  /** Waits on another process's lease. */
  leaseWaits: number;
  staleServed: number;
  factoryErrors: number;
  /** Factory answers handed to their callers without being cached (`ctx.skip()` or `cacheIf`). */
  uncached: number;
  cohApplied: number;
  cohStale: number;
  /** Whole-L1 flushes because the coherence log was trimmed past this process's position. */
  flushes: number;
  l2Errors: number;
  /** Reads answered from L1 or the factory because L2 was unreachable. */
  fallbacks: number;
}

export function emptyKeyedCounters(): KeyedCounters {
  return {
    hits: 0, misses: 0, l2Hits: 0, fills: 0, fillsRefused: 0, peerFills: 0, coalesced: 0, leaseWaits: 0, staleServed: 0,
    factoryErrors: 0, uncached: 0, cohApplied: 0, cohStale: 0, flushes: 0, l2Errors: 0, fallbacks: 0,
  };
}

/** A snapshot of a namespace's counters, L1 state, log reader and breaker. */
export interface NamespaceStats extends Readonly<KeyedCounters> {
  readonly size: number;
  readonly evictions: number;
  readonly expired: number;
  readonly log: LogStats | null;
  readonly breaker: 'closed' | 'open' | 'half-open' | null;
  readonly breakerOpens: number;
}

/** A keyed read with where it came from. */
export interface KeyedRead<T> {
  readonly value: T;
  readonly source: KeyedSource;
  /** The version of the entry served; absent for an answer that was not cached (`uncached`) or never reached L2 (`fallback-fill`). */
  readonly version: BrandedId | undefined;
}
