import type { BrandedId, Connection } from '@echo/protocol';
import type { Flight } from '../single-flight.js';
import type { EntryFrame } from './entry-frame.js';
import type { KeyedCounters, KeyedRead, NamespaceEvents } from './events.js';
import type { L2Guard } from './l2-guard.js';
import type { Entry } from '../core/rows.js';
import type { ResolvedNamespace } from './options.js';
import type { L2Reads } from './l2-reads.js';
import type { MissMeter } from './miss-meter.js';
import type { Held, Copies } from './read-mode.js';
import type { ScriptBatch } from './script-batch.js';
import type { Waiters } from './waiters.js';

/** A value and the version it was read at: what grace serves while a refresh runs. */
export interface StaleValue<T> {
  readonly value: T;
  readonly version: BrandedId;
}

/** An entry's fresh lifetime and its grace after it, in ms. */
export interface Lifetimes {
  readonly ttl: number;
  readonly grace: number;
}

/**
 * What the fill and write paths (the lease loop, the factory run, the entry write) take from their
 * namespace: the tiers, the L2 guard, the counters, and the namespace's own steps for admitting to
 * L1 and serving stale.
 * The namespace owns the state; those paths only decide the order of the steps.
 */
export interface FillHost<T> {
  readonly name: string;
  readonly options: ResolvedNamespace<T>;
  readonly connection: Connection;
  readonly now: () => number;
  readonly guard: L2Guard;
  readonly scripts: ScriptBatch;
  /** Plain reads, batched into one `MGET` per tick. */
  readonly reads: L2Reads;
  /** Whether an L1 miss reads plainly first or takes the lease read at once. */
  readonly misses: MissMeter;
  /** The read mode: what L1 keeps and what each caller gets. */
  readonly copies: Copies<T>;
  readonly counters: KeyedCounters;
  readonly waiters: Waiters;
  /** Whether a coherence log wakes lease waiters; without one they poll. */
  hasLog(): boolean;
  /** The L1 entry for `key`, live or not. */
  peek(key: string): Entry<T> | undefined;
  /** Throws once the namespace is stopped. */
  live(): void;
  /** Puts a frame read from L2 into L1 (unless news made it stale) and answers its value. */
  admitFrame(key: string, frame: EntryFrame, flight: Flight | undefined): T;
  /** Puts a value this process holds into L1 (unless news made it stale). */
  admit(key: string, held: Held<T>, version: BrandedId, lifetimes: Lifetimes, tags: readonly string[], flight: Flight | null): void;
  /** Serves a stale value in grace, counted and reported with `reason`. */
  stale(key: string, value: T, version: BrandedId, reason: NamespaceEvents['stale']['reason']): KeyedRead<T>;
  /** Serves an L1 entry because L2 is unreachable (outage mode). */
  fallback(key: string, entry: Entry<T>): KeyedRead<T>;
  /** Reports a finished fill (the `fill` event, when listened to). */
  filled(event: NamespaceEvents['fill']): void;
  /** Reports a factory that threw or timed out (the `factory-error` event). */
  factoryFailed(event: NamespaceEvents['factory-error']): void;
}
