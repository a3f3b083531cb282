import type { BrandedId, Connection } from '@echo/protocol/cache';
import { newer } from '../coherence/message.js';
import type { Flight } from '../core/single-flight.js';
import { cacheHit, cacheStale } from '../core/cache-hooks.js';
import type { CoherenceLog } from '../coherence/log.js';
import { type EntryFrame, holdsUndefined } from './entry-frame.js';
import { type KeyedCounters, type KeyedRead, type NamespaceEvents, emptyKeyedCounters } from './events.js';
import { MissMeter } from './miss-meter.js';
import type { ResolvedNamespace } from './options.js';
import { Copies, type Held } from './read-mode.js';
import { Waiters } from './waiters.js';
import { Stack } from '../core/stack.js';
import { type Entry, entryDead, entryDeadFrom } from '../core/rows.js';

/** An entry's fresh lifetime and its grace after it, in ms. */
export interface Lifetimes {
  readonly ttl: number;
  readonly grace: number;
}

/** Where the tiers report: the namespace's own emitter (its `emit` is protected, so it hands over these two). */
export interface EventSink {
  emit<K extends keyof NamespaceEvents>(event: K, payload: NamespaceEvents[K]): void;
  listenerCount(event: keyof NamespaceEvents): number;
}

/**
 * One keyed namespace's stack: the core {@link Stack} (L1, L2 behind its guard with batched plain
 * reads and scripts, the loads running here) with the namespace's read mode, coherence source,
 * lease waiters, counters and events. The faces (verbs) and the get-or-set
 * handler (the fill path) act on it; it owns the rules that keep L1 honest: what may go in (newer
 * wins, news that reached a running load wins over what that load read) and what may answer (nothing
 * while the coherence feed is lost).
 */
export class Tiers<T> extends Stack<Entry<T>, KeyedRead<T>> {
  readonly options: ResolvedNamespace<T>;
  /** Unix ms; injectable for tests. */
  readonly now: () => number;
  /** The read mode: what L1 keeps and what each caller gets. */
  readonly copies: Copies<T>;
  /** Whether an L1 miss reads plainly first or takes the lease read at once. */
  readonly misses = new MissMeter();
  readonly counters: KeyedCounters = emptyKeyedCounters();
  /** Callers waiting on another process's lease, woken by the coherence log. */
  readonly waiters = new Waiters();
  readonly events: EventSink;
  /** The coherence source; null when the namespace has none. */
  coherence: CoherenceLog | null = null;
  /** Unix ms since which the coherence feed may have missed entries; 0 while it is trusted. */
  #suspectSince = 0;
  /** Every entry may answer: the feed is trusted and nothing is suspect. One field, so a hit asks one question. */
  #clear = true;

  constructor(options: ResolvedNamespace<T>, connection: Connection, now: () => number, events: EventSink) {
    super({ name: options.name, maxSize: options.maxSize, eviction: 'clock', dead: entryDead, deadFrom: entryDeadFrom, outage: options.outage, now }, connection);
    this.options = options;
    this.now = now;
    this.events = events;
    this.copies = new Copies(options.codec, options.read, options.l1);
  }

  protected override l2Opened(): void {
    this.suspect();
    this.events.emit('breaker', { state: 'open' });
  }

  protected override l2Closed(): void {
    this.events.emit('breaker', { state: 'closed' });
  }

  protected override l2Failed(op: string, error: unknown): void {
    this.counters.l2Errors++;
    this.events.emit('l2-error', { op, error });
  }

  // ---- what L1 may answer -------------------------------------------------------------------

  /** The L1 entry for `key` if it may answer a read now: fresh, and heard about since. */
  fresh(key: string): Entry<T> | undefined {
    const entry = this.l1.get(key);
    return entry !== undefined && !this.stopped && this.now() < entry.expiresAt && (this.#clear || this.trusted(entry)) ? entry : undefined;
  }

  trusted(entry: Entry<T>): boolean {
    // While the feed is lost no entry can be trusted (a write elsewhere may go unheard); after it,
    // entries admitted before the loss may have missed a delete: L2 decides, unless L2 is the thing
    // that is down (the outage mode's fallback serves them on purpose).
    const heard = (this.coherence?.trusted ?? true) && (this.#suspectSince === 0 || entry.admittedAt >= this.#suspectSince);
    return heard || !(this.guard.breaker?.closed ?? true);
  }

  /** Serves a fresh L1 entry, counted and reported. */
  hit(key: string, entry: Entry<T>): { readonly value: T; readonly source: 'hit'; readonly version: BrandedId } {
    entry.used = true;
    this.counters.hits++;
    cacheHit(this.name, key, 'l1');
    if (this.events.listenerCount('hit') !== 0) this.events.emit('hit', { key });
    return { value: this.copies.out(entry), source: 'hit', version: entry.version };
  }

  /** Serves a stale value in grace, counted and reported with `reason`. */
  stale(key: string, value: T, version: BrandedId, reason: NamespaceEvents['stale']['reason']): KeyedRead<T> {
    this.counters.staleServed++;
    cacheStale(this.name, key);
    this.events.emit('stale', { key, reason });
    return { value, source: 'stale', version };
  }

  /** Serves an L1 entry because L2 is unreachable (outage mode). */
  fallback(key: string, entry: Entry<T>): KeyedRead<T> {
    this.counters.fallbacks++;
    this.events.emit('stale', { key, reason: 'outage' });
    return { value: this.copies.out(entry), source: 'fallback-l1', version: entry.version };
  }

  // ---- what goes into L1 --------------------------------------------------------------------

  /**
   * Puts a frame read from L2 into L1 and answers its value. An absent value (`undefined`, `null`)
   * gets no grace here: it may be a negative entry, which the server keeps for its own lifetime only.
   */
  admitFrame(key: string, frame: EntryFrame, flight: Flight | undefined): T {
    const { value, encoded } = holdsUndefined(frame.version) ? { value: undefined as T, encoded: undefined } : this.copies.fromL2(frame.bytes);
    // Without an L1 the read is decoded once, for its caller, and nothing else is built.
    if (!this.options.l1) return value;
    const expiresAt = frame.expiresAt === 0 ? Infinity : frame.expiresAt;
    const grace = value === undefined || value === null ? 0 : this.options.graceMs;
    this.#put(key, { value, encoded, version: frame.version, expiresAt, graceUntil: expiresAt + grace, admittedAt: this.now(), tags: [], used: false }, flight);
    return value;
  }

  /** Puts a value this process holds (a `set`, a factory's answer) into L1. */
  admit(key: string, held: Held<T>, version: BrandedId, lifetimes: Lifetimes, tags: readonly string[], flight: Flight | null): void {
    const now = this.now();
    const expiresAt = now + lifetimes.ttl;
    this.#put(key, { value: held.value, encoded: held.encoded, version, expiresAt, graceUntil: expiresAt + lifetimes.grace, admittedAt: now, tags, used: false }, flight ?? undefined);
  }

  #put(key: string, entry: Entry<T>, flight: Flight | undefined): void {
    if (this.stopped || !this.options.l1) return;
    // A write or delete announced while this load ran is newer than what it read.
    if (flight !== undefined && (flight.spoiled || (flight.newest !== null && newer(flight.newest, entry.version)))) return;
    const existing = this.l1.get(key);
    if (existing !== undefined && newer(existing.version, entry.version)) return;
    this.l1.set(key, entry, this.now());
  }

  // ---- what leaves L1 -----------------------------------------------------------------------

  /** Drops `key` from L1 and spoils its running load. */
  drop(key: string): void {
    this.l1.delete(key);
    const flight = this.flights.flight(key);
    if (flight !== undefined) flight.spoiled = true;
  }

  /** Drops all of L1 and spoils every running load. */
  flush(): void {
    this.counters.flushes++;
    this.l1.clear();
    for (const flight of this.flights.flights()) flight.spoiled = true;
  }

  /** The feed may have missed entries from now on: entries admitted before now are not trusted. */
  suspect(): void {
    if (this.#suspectSince === 0) this.#suspectSince = this.now();
    this.#clear = false;
  }

  /** A log read issued at `issuedAt` caught up: entries admitted before a suspicion are trusted again. */
  caughtUp(issuedAt: number): void {
    if (this.#suspectSince !== 0 && issuedAt >= this.#suspectSince && (this.guard.breaker?.closed ?? true)) this.#suspectSince = 0;
    this.#clear = this.#suspectSince === 0 && (this.coherence?.trusted ?? true);
  }
}
