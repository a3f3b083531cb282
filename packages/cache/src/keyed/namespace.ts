import { type Connection, InvalidArgumentError, TypedEmitter, assertCacheEntryKey, assertCacheTag, execute, mintId, transitions, RenamedError } from '@echo/protocol/cache';
import { GetOrSet } from '../core/get-or-set.js';
import type { Entry } from '../core/rows.js';
import { closeFace } from '../core/shutdown.js';
import { type Lifetimes, Tiers } from './tiers.js';
import { applyLog } from './apply-log.js';
import { VERSION_KIND, clearEntries, deleteTagged } from './bulk-delete.js';
import { cacheHit } from '../core/cache-hooks.js';
import { CoherenceLog } from '../coherence/log.js';
import { storedVersion } from './entry-frame.js';
import { type EntryWrite, type FactoryCall, type FactoryTicket, KeyedSteps } from './fill-steps.js';
import { expireEntry, pullEntry } from './entry-steps.js';
import { readEntry } from './read-entry.js';
import type { KeyedRead, NamespaceEvents, NamespaceStats } from './events.js';
import { checkDelete, checkDeleteByTag, checkExpire, checkGet, checkGetValue, checkPull, checkWrite } from '../base/option-checks.js';
import { type DefaultFactory, type Factory, type GetOptions, type GetOrSetOptions, type NoOptions, type ResolvedNamespace, type WriteOptions, checkGetOrSetCall, checkTags, checkTimeouts, lifetime, nonNegative } from './options.js';

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
  // The face: verbs check their arguments here and act on the tiers; misses go to the handler.
  readonly #t: Tiers<T>;
  readonly #getOrSet: GetOrSet<string, FactoryCall<T>, KeyedRead<T>, FactoryTicket<T>, EntryWrite<T>>;
  #sweeper: NodeJS.Timeout | undefined;

  private constructor(options: ResolvedNamespace<T>, runtime: NamespaceRuntime) {
    super();
    this.name = options.name;
    this.#o = options;
    this.#rt = runtime;
    this.#t = new Tiers(options, runtime.connection, runtime.now, { emit: (event, payload) => this.emit(event, payload), listenerCount: (event) => this.listenerCount(event) });
    this.#getOrSet = new GetOrSet(new KeyedSteps(this.#t));
  }

  /** @internal Use `Cache.namespace`. */
  static async open<T>(options: ResolvedNamespace<T>, runtime: NamespaceRuntime): Promise<Namespace<T>> {
    const ns = new Namespace(options, runtime);
    const t = ns.#t;
    if (options.coherence) {
      t.coherence = await CoherenceLog.start(
        runtime.connection,
        options.name,
        {
          apply: (entries) => applyLog(entries, t),
          lost: () => t.suspect(),
          gap: () => t.flush(),
          caughtUp: (issuedAt) => t.caughtUp(issuedAt),
        },
        runtime.now,
      );
    }
    ns.#sweeper = setInterval(() => t.l1.sweep(runtime.now()), options.sweepMs);
    ns.#sweeper.unref();
    return ns;
  }

  /**
   * The value at `key`, or `default` when the key is absent (missing, or a cached `undefined`/`null`);
   * a function default is called only then, and its answer returned. The default is not written.
   */
  get(key: string, options: GetOptions<T> & { readonly default: T | DefaultFactory<T> }): Promise<T>;
  /** The value at `key`: fresh from L1 or L2, or stale within its grace; `undefined` when absent. */
  get(key: string, options?: GetOptions<T>): Promise<T | undefined>;
  get(key: string, options?: GetOptions<T>): Promise<T | undefined> {
    // Options go the long way, so a refused one rejects rather than throws.
    if (options !== undefined) return this.#getOr(key, options);
    // The hit path allocates nothing but the promise: a key found in L1 was checked when it went in.
    const t = this.#t;
    const entry = t.fresh(key);
    if (entry !== undefined) {
      entry.used = true;
      t.counters.hits++;
      cacheHit(this.name, key, 'l1');
      if (this.listenerCount('hit') !== 0) this.emit('hit', { key });
      return Promise.resolve(t.copies.out(entry));
    }
    return this.getEntry(key).then((read) => read?.value);
  }

  async #getOr(key: string, options: GetOptions<T>): Promise<T | undefined> {
    checkGetValue(options);
    const value = (await this.getEntry(key))?.value;
    const fallback = options.default;
    if (fallback === undefined || (value !== undefined && value !== null)) return value;
    // Called on a miss only, as bentocache's defaultValue: a costly fallback costs nothing on a hit.
    return typeof fallback === 'function' ? (fallback as DefaultFactory<T>)() : fallback;
  }

  /** Like {@link get}, with the source and version. */
  async getEntry(key: string, options?: NoOptions): Promise<KeyedRead<T> | undefined> {
    checkGet(options);
    const t = this.#t;
    t.live();
    assertCacheEntryKey(key);
    const fresh = t.fresh(key);
    if (fresh !== undefined) return t.hit(key, fresh);
    return readEntry(t, key);
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
   * (`undefined`/`null`) lives `negativeTtlMs` when one is set (negative caching).
   *
   * @throws FactoryTimeoutError past `timeouts.hardMs`; the factory's own error when there is no stale value.
   */
  async getOrSet(key: string, factory: Factory<T>, options: GetOrSetOptions<T> = {}): Promise<T> {
    return (await this.getOrSetEntry(key, factory, options)).value;
  }

  /** {@link getOrSet} with no expiry. */
  async getOrSetForever(key: string, factory: Factory<T>, options: Omit<GetOrSetOptions<T>, 'ttlMs'> = {}): Promise<T> {
    return this.getOrSet(key, factory, { ...options, ttlMs: Infinity });
  }

  /** Like {@link getOrSet}, with the source and version. */
  async getOrSetEntry(key: string, factory: Factory<T>, options: GetOrSetOptions<T> = {}): Promise<KeyedRead<T>> {
    // Checked before anything is read: a bad lifetime must not leave a lease behind.
    checkGetOrSetCall(options);
    const t = this.#t;
    t.live();
    assertCacheEntryKey(key);
    if (typeof factory !== 'function') throw new InvalidArgumentError('factory', 'must be a function (ctx) => value');
    if (options.forceFresh !== true) {
      const entry = t.fresh(key);
      if (entry !== undefined) return t.hit(key, entry);
    }
    const checked = { ...options, tags: checkTags(options.tags), timeouts: { ...t.options.timeouts, ...checkTimeouts(options.timeouts) } };
    return this.#getOrSet.handle(key, { factory, options: checked });
  }

  /**
   * Writes `value` to both tiers and tells every process; newer wins everywhere.
   *
   * @throws InvalidArgumentError for an `undefined` value, before anything is written: it is most
   *   often a slip (a variable not yet set), and storing it would read back as a miss. `delete(key)`
   *   removes an entry; a cached absence is `set(key, null)`, or a `getOrSet` factory's
   *   `undefined`/`null` answer, which lives `negativeTtlMs`.
   */
  async set(key: string, value: T, options: WriteOptions = {}): Promise<void> {
    checkWrite(options);
    this.#t.live();
    assertCacheEntryKey(key);
    if (value === undefined) throw new InvalidArgumentError('value', 'undefined is not a value to cache: delete(key) removes an entry; to cache an absence, set null, or let a getOrSet factory answer undefined (kept negativeTtlMs)');
    await this.#getOrSet.write(key, { value, lifetimes: this.#lifetimes(options), tags: checkTags(options.tags), token: '', version: storedVersion(value, mintId(VERSION_KIND)) });
  }
  /** {@link set} with no expiry. */
  async setForever(key: string, value: T, options: Omit<WriteOptions, 'ttlMs'> = {}): Promise<void> {
    return this.set(key, value, { ...options, ttlMs: Infinity });
  }

  /** Deletes `key` here first, then in L2 with its coherence entry. @throws L2UnavailableError (outage mode) after the local delete. */
  async delete(key: string, options?: NoOptions): Promise<boolean> {
    return (await this.deleteMany([key], options)) > 0;
  }

  /** Deletes keys here first, then in L2 in one step; answers how many L2 held. */
  async deleteMany(keys: readonly string[], options?: NoOptions): Promise<number> {
    checkDelete(options);
    this.#t.live();
    for (const key of keys) assertCacheEntryKey(key);
    if (keys.length === 0) return 0;
    for (const key of keys) this.#t.drop(key);
    const version = mintId(VERSION_KIND);
    return this.#t.guard.write('delete', () => execute(this.#rt.connection, transitions.cacheDelete({ namespace: this.name, keys, version, maxlen: this.#o.logMaxLen })));
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
    this.#t.live();
    return pullEntry(this.#t, key);
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
    this.#t.live();
    return expireEntry(this.#t, key);
  }

  /** Deletes every entry written with `tag`, here first, then in L2; answers how many L2 held. */
  async deleteByTag(tag: string, options?: NoOptions): Promise<number> {
    checkDeleteByTag(options);
    this.#t.live();
    assertCacheTag(tag);
    for (const [key, entry] of this.#t.l1.entries()) if (entry.tags.includes(tag)) this.#t.drop(key);
    return deleteTagged(this.#t, tag);
  }

  /** Empties the namespace: this L1 at once, every other process's through the log, then L2's entries. */
  async clear(): Promise<void> {
    this.#t.live();
    this.#t.flush();
    await clearEntries(this.#t, mintId(VERSION_KIND));
  }

  /** Counters, L1 state, the log reader's and the breaker's. */
  stats(): NamespaceStats {
    const t = this.#t;
    const { size, evictions, expired } = t.l1;
    const breaker = t.guard.breaker;
    return { ...t.counters, size, evictions, expired, log: t.coherence?.stats() ?? null, breaker: breaker?.state ?? null, breakerOpens: breaker?.opens ?? 0 };
  }

  /** The L1 entry for `key`, live or not, without counting a read. For tests and diagnostics. */
  peek(key: string): Readonly<Entry<T>> | undefined {
    const entry = this.#t.l1.get(key);
    if (entry?.encoded === undefined) return entry;
    // A value not yet read is decoded now, so what is peeked is what a hit would see (L1 keeps a
    // written value's encoding, not its writer's object).
    const value = this.#t.copies.out(entry);
    // A frozen hit decodes into the entry itself; a clone hit hands out a copy, shown beside it.
    return this.#o.read === 'frozen' ? entry : { ...entry, value };
  }

  /** True once {@link close} has been called. */
  get closed(): boolean {
    return this.#t.stopped;
  }

  /** @deprecated Use {@link closed}. */
  get stopped(): boolean {
    return this.#t.stopped;
  }

  /** Stops the log reader and the sweeper, empties L1 and wakes lease waiters. Idempotent. */
  close(): Promise<void> {
    const t = this.#t;
    return closeFace(t, { leave: () => this.#rt.onStop(this.name), sweeper: this.#sweeper, release: () => t.waiters.wakeAll(), source: t.coherence });
  }

  /**
   * Renamed {@link close}; refused, so one name stays in use.
   *
   * @deprecated Use {@link close}.
   * @throws RenamedError (from `@echo/protocol`) always, naming `close()`.
   */
  stop(): never {
    throw new RenamedError('Namespace.stop()', 'Namespace.close()');
  }

  #lifetimes(options: WriteOptions): Lifetimes {
    return { ttl: lifetime('ttlMs', options.ttlMs, this.#o.ttlMs), grace: nonNegative('graceMs', options.graceMs, this.#o.graceMs) };
  }
}
