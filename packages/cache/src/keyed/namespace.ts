import { type BrandedId, type Connection, TypedEmitter, assertCacheEntryKey, assertCacheTag, cacheEntryKey, execute, mintId, transitions } from '@echo/protocol';
import { NoSuchCacheError } from '../errors.js';
import { Flights } from '../single-flight.js';
import { applyLog } from './apply-log.js';
import { cacheHit, cacheMiss, cacheStale } from './cache-hooks.js';
import { type BulkTarget, VERSION_KIND, clearEntries, deleteTagged } from './bulk-delete.js';
import { CoherenceLog } from './coherence-log.js';
import { Admission } from './admission.js';
import { decodeEntryFrame, storedVersion } from './entry-frame.js';
import { expireEntry, pullEntry } from './entry-steps.js';
import { type KeyedCounters, type KeyedRead, type NamespaceEvents, type NamespaceStats, emptyKeyedCounters } from './events.js';
import type { FillHost, Lifetimes } from './fill-host.js';
import { L2Guard } from './l2-guard.js';
import { L2Reads } from './l2-reads.js';
import { loadThroughLease } from './lease-load.js';
import { ScriptBatch } from './script-batch.js';
import { L1 } from '../core/l1.js';
import { type Entry, entryDead } from '../core/rows.js';
import { checkDelete, checkDeleteByTag, checkExpire, checkGet, checkGetValue, checkPull, checkWrite } from '../option-checks.js';
import { type Factory, type GetOptions, type GetOrSetOptions, type NoOptions, type ResolvedNamespace, type WriteOptions, checkGetOrSetCall, checkTags, checkTimeouts, lifetime, nonNegative } from './options.js';
import { MissMeter } from './miss-meter.js';
import { Copies } from './read-mode.js';
import { Waiters } from './waiters.js';
import { writeEntry } from './write-entry.js';

/** What a namespace takes from its directory. */
export interface NamespaceRuntime {
  readonly connection: Connection;
  /** Unix ms; injectable for tests. */
  readonly now: () => number;
  readonly onStop: (name: string) => void;
}

/**
 * A keyed cache namespace ([TS]): any string key, two tiers (an LRU L1 and L2 frames under
 * `ecc:{<name>}:k:<key>`), writes that carry their own coherence through the namespace's log, grace
 * and factory timeouts, and one load per key across every process (a fenced lease in L2).
 *
 * Obtain one from `Cache.namespace`. Events: see {@link NamespaceEvents}.
 *
 * @typeParam T the value type, carried by the namespace's codec.
 */
export class Namespace<T> extends TypedEmitter<NamespaceEvents> {
  readonly name: string;
  readonly #o: ResolvedNamespace<T>;
  readonly #rt: NamespaceRuntime;
  readonly #l1: L1<Entry<T>>;
  readonly #reads: L2Reads;
  readonly #scripts: ScriptBatch;
  readonly #flights = new Flights<KeyedRead<T>>();
  readonly #counters: KeyedCounters = emptyKeyedCounters();
  readonly #waiters = new Waiters();
  readonly #guard: L2Guard;
  readonly #fill: FillHost<T>;
  readonly #copies: Copies<T>;
  readonly #admission: Admission<T>;
  #log: CoherenceLog | null = null;
  #sweeper: NodeJS.Timeout | undefined;
  /** Unix ms since which the coherence feed may have missed entries; 0 while it is trusted. */
  #suspectSince = 0;
  #stopped = false;

  private constructor(options: ResolvedNamespace<T>, runtime: NamespaceRuntime) {
    super();
    this.name = options.name;
    this.#o = options;
    this.#rt = runtime;
    this.#l1 = new L1<Entry<T>>({ maxSize: options.maxSize, eviction: 'clock', dead: entryDead, name: options.name });
    this.#copies = new Copies(options.codec, options.read, options.l1);
    this.#admission = new Admission({ l1: this.#l1, copies: this.#copies, enabled: options.l1, grace: options.grace, now: runtime.now, stopped: () => this.#stopped });
    this.#reads = new L2Reads(runtime.connection);
    this.#scripts = new ScriptBatch(runtime.connection);
    this.#guard = new L2Guard(options.outage, runtime.now, {
      opened: () => {
        this.#suspect();
        this.emit('breaker', { state: 'open' });
      },
      closed: () => this.emit('breaker', { state: 'closed' }),
      failed: (op, error) => {
        this.#counters.l2Errors++;
        this.emit('l2-error', { op, error });
      },
    });
    this.#fill = this.#fillHost();
  }

  /** @internal Use `Cache.namespace`. */
  static async open<T>(options: ResolvedNamespace<T>, runtime: NamespaceRuntime): Promise<Namespace<T>> {
    const ns = new Namespace(options, runtime);
    if (options.coherence) {
      ns.#log = await CoherenceLog.start(
        runtime.connection,
        options.name,
        {
          apply: (entries) => ns.#apply(entries),
          lost: () => ns.#suspect(),
          gap: () => ns.#flush(),
          caughtUp: (issuedAt) => {
            if (ns.#suspectSince !== 0 && issuedAt >= ns.#suspectSince && (ns.#guard.breaker?.closed ?? true)) ns.#suspectSince = 0;
          },
        },
        runtime.now,
      );
    }
    ns.#sweeper = setInterval(() => ns.#l1.sweep(runtime.now()), options.sweepMs);
    ns.#sweeper.unref();
    return ns;
  }

  /** The value at `key`, or `default` when the key is absent (missing, or a cached `undefined`/`null`); the default is not written. */
  get(key: string, options: GetOptions<T> & { readonly default: T }): Promise<T>;
  /** The value at `key`: fresh from L1 or L2, or stale within its grace; `undefined` when absent. */
  get(key: string, options?: GetOptions<T>): Promise<T | undefined>;
  get(key: string, options?: GetOptions<T>): Promise<T | undefined> {
    // Options go the long way, so a refused one rejects rather than throws.
    if (options !== undefined) return this.#getOr(key, options);
    // The hit path allocates nothing but the promise: a key found in L1 was checked when it went in.
    const entry = this.#l1.get(key);
    if (entry !== undefined && !this.#stopped && this.#rt.now() < entry.expiresAt && this.#trusted(entry)) {
      entry.used = true;
      this.#counters.hits++;
      cacheHit(this.name, key, 'l1');
      if (this.listenerCount('hit') !== 0) this.emit('hit', { key });
      return Promise.resolve(entry.encoded === undefined ? entry.value : this.#copies.out(entry));
    }
    return this.getEntry(key).then((read) => read?.value);
  }

  async #getOr(key: string, options: GetOptions<T>): Promise<T | undefined> {
    checkGetValue(options);
    const value = (await this.getEntry(key))?.value;
    return options.default !== undefined && (value === undefined || value === null) ? options.default : value;
  }

  /** Like {@link get}, with the source and version. */
  async getEntry(key: string, options?: NoOptions): Promise<KeyedRead<T> | undefined> {
    checkGet(options);
    this.#live();
    assertCacheEntryKey(key);
    const entry = this.#l1.get(key);
    const now = this.#rt.now();
    if (entry !== undefined && now < entry.expiresAt && this.#trusted(entry)) return this.#hit(key, entry);
    this.#counters.misses++;
    let frame: Buffer | null;
    try {
      frame = await this.#guard.call('get', () => this.#reads.read(cacheEntryKey(this.name, key)));
    } catch (error) {
      if (!this.#guard.fallsBack) throw error;
      return entry !== undefined && now < entry.graceUntil ? this.#fallback(key, entry) : undefined;
    }
    if (frame === null) {
      cacheMiss(this.name, key);
      return undefined;
    }
    const decoded = decodeEntryFrame(cacheEntryKey(this.name, key), frame);
    const value = this.#admission.frame(key, decoded, undefined);
    if (decoded.expiresAt !== 0 && decoded.expiresAt <= now) return this.#stale(key, value, decoded.version, 'refreshing');
    this.#counters.l2Hits++;
    cacheHit(this.name, key, 'l2');
    return { value, source: 'l2', version: decoded.version };
  }

  /** Reads many keys; absent ones answer `undefined`. Their L2 reads go out as one `MGET`. */
  async getMany(keys: readonly string[]): Promise<(T | undefined)[]> {
    return Promise.all(keys.map((key) => this.get(key)));
  }

  /** True when `key` holds a value, fresh or in grace; a cached absence (`undefined`/`null`) is not one. */
  async has(key: string, options?: NoOptions): Promise<boolean> {
    const value = (await this.getEntry(key, options))?.value;
    return value !== undefined && value !== null;
  }

  /**
   * The value at `key`, or the factory's: one load per key across every process. A miss takes the
   * key's lease in L2 in the same script that reads it; callers elsewhere wait for the fill's
   * coherence entry (or the lease's expiry) instead of loading. A stale value in grace is served
   * while one refresh runs; a factory that throws during grace leaves the stale value served.
   * A factory may decline to cache its answer (`ctx.skip()`, `cacheIf`); an absent answer
   * (`undefined`/`null`) lives `negativeTtl` when one is set (negative caching).
   *
   * @throws FactoryTimeoutError past `timeouts.hard`; the factory's own error when there is no stale value.
   */
  async getOrSet(key: string, factory: Factory<T>, options: GetOrSetOptions<T> = {}): Promise<T> {
    return (await this.getOrSetEntry(key, factory, options)).value;
  }

  /** {@link getOrSet} with no expiry. */
  async getOrSetForever(key: string, factory: Factory<T>, options: Omit<GetOrSetOptions<T>, 'ttl'> = {}): Promise<T> {
    return this.getOrSet(key, factory, { ...options, ttl: Infinity });
  }

  /** Like {@link getOrSet}, with the source and version. */
  async getOrSetEntry(key: string, factory: Factory<T>, options: GetOrSetOptions<T> = {}): Promise<KeyedRead<T>> {
    // Checked before anything is read: a bad lifetime must not leave a lease behind.
    checkGetOrSetCall(options);
    this.#live();
    assertCacheEntryKey(key);
    if (typeof factory !== 'function') throw new TypeError('factory must be a function');
    const entry = this.#l1.get(key);
    if (options.forceFresh !== true && entry !== undefined && this.#rt.now() < entry.expiresAt && this.#trusted(entry)) return this.#hit(key, entry);
    this.#counters.misses++;
    cacheMiss(this.name, key);
    if (this.listenerCount('miss') !== 0) this.emit('miss', { key });
    const running = this.#flights.join(key);
    if (running !== undefined) {
      this.#counters.coalesced++;
      return running.then((read) => ({ ...read, value: this.#copies.joined(read.value) }));
    }
    const checked = { ...options, tags: checkTags(options.tags), timeouts: { ...this.#o.timeouts, ...checkTimeouts(options.timeouts) } };
    return this.#flights.start(key, (flight) => loadThroughLease(this.#fill, key, factory, checked, flight));
  }

  /** Writes `value` to both tiers and tells every process; newer wins everywhere. */
  async set(key: string, value: T, options: WriteOptions = {}): Promise<void> {
    checkWrite(options);
    this.#live();
    assertCacheEntryKey(key);
    await writeEntry(this.#fill, key, value, this.#lifetimes(options), checkTags(options.tags), '', storedVersion(value, mintId(VERSION_KIND)), null);
  }

  /** {@link set} with no expiry. */
  async setForever(key: string, value: T, options: Omit<WriteOptions, 'ttl'> = {}): Promise<void> {
    return this.set(key, value, { ...options, ttl: Infinity });
  }

  /** Deletes `key` here first, then in L2 with its coherence entry. @throws L2UnavailableError (outage mode) after the local delete. */
  async delete(key: string, options?: NoOptions): Promise<boolean> {
    return (await this.deleteMany([key], options)) > 0;
  }

  /** Deletes keys here first, then in L2 in one step; answers how many L2 held. */
  async deleteMany(keys: readonly string[], options?: NoOptions): Promise<number> {
    checkDelete(options);
    this.#live();
    for (const key of keys) assertCacheEntryKey(key);
    if (keys.length === 0) return 0;
    for (const key of keys) this.#drop(key);
    const version = mintId(VERSION_KIND);
    return this.#guard.write('delete', () => execute(this.#rt.connection, transitions.cacheDelete({ namespace: this.name, keys, version, maxlen: this.#o.logMaxLen })));
  }

  /**
   * Reads `key` and deletes it in one step on the server (bentocache's `pull`): of two callers
   * pulling one key, only one gets its value. The entry leaves this L1 first, and every other
   * process's through the coherence log. Answers the value (fresh or in grace), or `undefined`.
   *
   * @throws L2UnavailableError (outage mode) after the local delete.
   */
  async pull(key: string, options?: NoOptions): Promise<T | undefined> {
    checkPull(options);
    this.#live();
    return pullEntry(this.#bulk(), this.#o.codec, key);
  }

  /**
   * Marks `key` stale now but keeps it for the namespace's grace (bentocache's `expire`): the next
   * `getOrSet` refreshes it, and until then a read answers the stale value by the grace rules. With
   * no grace the entry is deleted. Every process's L1 drops its fresh copy. Answers whether L2 held it.
   *
   * @throws L2UnavailableError (outage mode) after the local drop.
   */
  async expire(key: string, options?: NoOptions): Promise<boolean> {
    checkExpire(options);
    this.#live();
    return expireEntry(this.#bulk(), this.#o.grace, key);
  }

  /** Deletes every entry written with `tag`, here first, then in L2; answers how many L2 held. */
  async deleteByTag(tag: string, options?: NoOptions): Promise<number> {
    checkDeleteByTag(options);
    this.#live();
    assertCacheTag(tag);
    for (const [key, entry] of this.#l1.entries()) if (entry.tags.includes(tag)) this.#drop(key);
    return deleteTagged(this.#bulk(), tag);
  }

  /** Empties the namespace: this L1 at once, every other process's through the log, then L2's entries. */
  async clear(): Promise<void> {
    this.#live();
    this.#flush();
    await clearEntries(this.#bulk(), mintId(VERSION_KIND));
  }

  /** Counters, L1 state, the log reader's and the breaker's. */
  stats(): NamespaceStats {
    const { size, evictions, expired } = this.#l1;
    const breaker = this.#guard.breaker;
    return { ...this.#counters, size, evictions, expired, log: this.#log?.stats() ?? null, breaker: breaker?.state ?? null, breakerOpens: breaker?.opens ?? 0 };
  }

  /** The L1 entry for `key`, live or not, without counting a read. For tests and diagnostics. */
  peek(key: string): Readonly<Entry<T>> | undefined {
    const entry = this.#l1.get(key);
    // A frozen value not yet read is decoded now, so what is peeked is what a hit would see.
    if (entry?.encoded !== undefined && this.#o.read === 'frozen') this.#copies.out(entry);
    return entry;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops the log reader and the sweeper and empties L1. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#rt.onStop(this.name);
    clearInterval(this.#sweeper);
    this.#l1.clear();
    this.#waiters.wakeAll();
    await this.#log?.stop();
  }

  // ---- L1 -----------------------------------------------------------------------------------

  #hit(key: string, entry: Entry<T>): { readonly value: T; readonly source: 'hit'; readonly version: BrandedId } {
    entry.used = true;
    this.#counters.hits++;
    cacheHit(this.name, key, 'l1');
    if (this.listenerCount('hit') !== 0) this.emit('hit', { key });
    return { value: entry.encoded === undefined ? entry.value : this.#copies.out(entry), source: 'hit', version: entry.version };
  }

  #stale(key: string, value: T, version: BrandedId, reason: NamespaceEvents['stale']['reason']): KeyedRead<T> {
    this.#counters.staleServed++;
    cacheStale(this.name, key);
    this.emit('stale', { key, reason });
    return { value, source: 'stale', version };
  }

  #fallback(key: string, entry: Entry<T>): KeyedRead<T> {
    this.#counters.fallbacks++;
    this.emit('stale', { key, reason: 'outage' });
    return { value: this.#copies.out(entry), source: 'fallback-l1', version: entry.version };
  }

  #trusted(entry: Entry<T>): boolean {
    // While the feed is lost no entry can be trusted (a write elsewhere may go unheard); after it,
    // entries admitted before the loss may have missed a delete: L2 decides, unless L2 is the thing
    // that is down (the outage mode's fallback serves them on purpose).
    const heard = (this.#log?.live ?? true) && (this.#suspectSince === 0 || entry.admittedAt >= this.#suspectSince);
    return heard || !(this.#guard.breaker?.closed ?? true);
  }

  #drop(key: string): void {
    this.#l1.delete(key);
    const flight = this.#flights.flight(key);
    if (flight !== undefined) flight.spoiled = true;
  }

  #flush(): void {
    this.#counters.flushes++;
    this.#l1.clear();
    for (const flight of this.#flights.flights()) flight.spoiled = true;
  }

  #lifetimes(options: WriteOptions): Lifetimes {
    return { ttl: lifetime('ttl', options.ttl, this.#o.ttl), grace: nonNegative('grace', options.grace, this.#o.grace) };
  }

  // ---- coherence ----------------------------------------------------------------------------

  #apply(entries: Parameters<typeof applyLog>[0]): void {
    applyLog(entries, {
      l1: this.#l1,
      counters: this.#counters,
      waiters: this.#waiters,
      flight: (key) => this.#flights.flight(key),
      flights: () => this.#flights.flights(),
      applied: (event) => {
        if (event.op === 'c' || this.listenerCount('coherence') !== 0) this.emit('coherence', event);
      },
    });
  }

  #suspect(): void {
    if (this.#suspectSince === 0) this.#suspectSince = this.#rt.now();
  }

  /** The namespace as the fill and write paths see it (lease-load.ts, factory-run.ts, write-entry.ts). */
  #fillHost(): FillHost<T> {
    return {
      name: this.name,
      options: this.#o,
      connection: this.#rt.connection,
      now: () => this.#rt.now(),
      guard: this.#guard,
      scripts: this.#scripts,
      reads: this.#reads,
      copies: this.#copies,
      misses: new MissMeter(),
      counters: this.#counters,
      waiters: this.#waiters,
      hasLog: () => this.#log !== null,
      peek: (key) => this.#l1.get(key),
      live: () => this.#live(),
      admitFrame: (key, frame, flight) => this.#admission.frame(key, frame, flight),
      admit: (key, held, version, lifetimes, tags, flight) => this.#admission.held(key, held, version, lifetimes, tags, flight),
      stale: (key, value, version, reason) => this.#stale(key, value, version, reason),
      fallback: (key, entry) => this.#fallback(key, entry),
      filled: (event) => {
        if (this.listenerCount('fill') !== 0) this.emit('fill', event);
      },
      factoryFailed: (event) => this.emit('factory-error', event),
    };
  }

  #bulk(): BulkTarget {
    return { connection: this.#rt.connection, name: this.name, logMaxLen: this.#o.logMaxLen, guard: this.#guard, drop: (key) => this.#drop(key) };
  }

  #live(): void {
    if (this.#stopped) throw new NoSuchCacheError(this.name);
  }
}
