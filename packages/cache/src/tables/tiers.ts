import { type BrandedId, checkValueSize } from '@echo/protocol/cache';
import type { CoherenceLane, CoherenceTarget } from '../coherence/source.js';
import { newer } from '../coherence/message.js';
import { Stack } from '../core/stack.js';
import { type Row, rowDead, rowDeadFrom } from '../core/rows.js';
import { expiresAt } from './expiry.js';
import type { Flight } from '../core/single-flight.js';
import type { ResolvedSpec } from './spec.js';
import { emptyCounters } from '../base/stats.js';
import type { Fetched, TableRuntime } from './fetched.js';

/**
 * One declared table's stack: the core {@link Stack} (its L1 evicts by `skip`, cache.md §6; its L2
 * guard is a pass-through) with the table's counters and coherence lane. The table's verbs and its fill steps act on it; it owns the rules
 * that keep L1 honest: a fill older than news that reached it, or than a row a write put meanwhile,
 * does not go in, and nothing goes in while the lane is not trusted.
 */
export class TableTiers<T, K extends string> extends Stack<Row<T>, Fetched<T>> {
  readonly kind: K;
  readonly spec: ResolvedSpec<T, K>;
  readonly runtime: TableRuntime;
  readonly counters = emptyCounters();
  lane: CoherenceLane | null = null;

  constructor(spec: ResolvedSpec<T, K>, runtime: TableRuntime) {
    // A table has no outage mode (cache.md): its guard passes L2's errors through as they are.
    super({ name: spec.name, maxSize: spec.maxSize, eviction: 'skip', dead: rowDead, deadFrom: rowDeadFrom, outage: null, now: runtime.now }, runtime.connection);
    this.kind = spec.kind;
    this.spec = spec;
    this.runtime = runtime;
  }

  /** A live L1 row for `id` as a counted `hit`, or undefined. */
  hit(id: string): Fetched<T> | undefined {
    const row = this.l1.get(id);
    if (row === undefined || !(this.runtime.now() < row.expiresAt)) return undefined;
    this.counters.hits++;
    return { value: row.value, source: 'hit', version: row.version };
  }

  /** The value's bytes for L2, refused over the table's cap before anything is written. */
  encode(id: string, value: T): Buffer | string {
    const encoded = this.spec.codec.encode(value);
    checkValueSize(`cache value for ${this.name}/${id}`, encoded, this.spec.maxValueBytes);
    return encoded;
  }

  /**
   * Puts what a fill read or loaded into L1, unless news newer than it reached the fill (a coherence
   * version, an invalidate, a flush) or a put that landed while it ran holds a newer row.
   */
  admitFilled(id: string, fetched: Fetched<T>, flight: Flight): void {
    if (this.stopped || flight.spoiled || (flight.newest !== null && newer(flight.newest, fetched.version))) return;
    const existing = this.l1.get(id);
    if (existing === undefined || !newer(existing.version, fetched.version)) this.admit(id, fetched.value, fetched.version);
  }

  /** Puts a row into L1 with a jittered expiry; nothing goes in while the lane is not trusted. */
  admit(id: string, value: T, version: BrandedId): void {
    if (this.stopped || !(this.lane?.trusted ?? true)) return;
    const now = this.runtime.now();
    const row: Row<T> = { value, version, expiresAt: expiresAt(now, this.spec.ttlMs, this.spec.jitter, this.runtime.random) };
    this.l1.set(id, row, now);
  }

  /** Remembers `version` on the fill running for `id`, so it will not cache an older answer. */
  noteVersion(id: string, version: string): void {
    const flight = this.flights.flight(id);
    if (flight !== undefined && (flight.newest === null || newer(version, flight.newest))) flight.newest = version;
  }

  /** Keeps the fill running for `id` from caching what it read. */
  spoil(id: string): void {
    const flight = this.flights.flight(id);
    if (flight !== undefined) flight.spoiled = true;
  }

  /** What a coherence lane acts on; `applyCoherence` is the table's verb, checks included. */
  target(applyCoherence: CoherenceTarget['applyCoherence']): CoherenceTarget {
    return {
      name: this.name,
      kind: this.kind,
      applyCoherence,
      evict: (id) => {
        this.spoil(id);
        const dropped = this.l1.delete(id);
        if (dropped) this.counters.cohApplied++;
        else this.counters.cohStale++;
        return dropped;
      },
      flush: () => {
        this.l1.clear();
        for (const flight of this.flights.flights()) flight.spoiled = true;
      },
    };
  }
}
