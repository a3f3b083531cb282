import { type BrandedId, cacheEntryKey, checkValueSize, execute, mintId, transitions, writes } from '@echo/protocol/cache';
import { FactoryTimeoutError } from '../base/errors.js';
import type { FillSteps, FlightCounters, LeaseLoaded } from '../core/get-or-set.js';
import type { Lifetimes, Tiers } from './tiers.js';
import type { Flight, Flights } from '../core/single-flight.js';
import { VERSION_KIND } from './bulk-delete.js';
import { cacheFill, cacheMiss } from '../core/cache-hooks.js';
import { decodeEntryFrame, encodeEntryFrame, storedVersion } from './entry-frame.js';
import type { KeyedRead } from './events.js';
import { nextLeaseToken } from './lease-token.js';
import { type Factory, type GetOrSetOptions, checkTags, lifetime, nonNegative } from './options.js';

/** What one lease round found: `cache_read`'s answer, or the plain entry lease's (a frame as bytes). */
interface LeaseRead {
  readonly status: 'fresh' | 'leased' | 'busy' | 'none' | 'found';
  readonly frame: string | Buffer | null;
  readonly pttl: number;
}

/** A value and the version it was read at: what grace serves while a refresh runs. */
interface StaleValue<T> {
  readonly value: T;
  readonly version: BrandedId;
}

/** A `getOrSet` call: its factory and its options, tags and timeouts checked. */
export interface FactoryCall<T> {
  readonly factory: Factory<T>;
  readonly options: GetOrSetOptions<T>;
}

/**
 * What the lease-load hands the factory-run: the lease to fill under (`''` for an unfenced write,
 * forceFresh; `null` when L2 is unreachable, the answer then stays in L1) and a stale value in grace.
 */
export interface FactoryTicket<T> {
  readonly token: string | null;
  readonly stale: StaleValue<T> | undefined;
  /** The lease is the entry's lease frame (a miss), not the lease key (a refresh in grace). */
  readonly entryLease: boolean;
}

/** One write of an entry: `version` must already be the stored one (`storedVersion`). */
export interface EntryWrite<T> {
  readonly value: T;
  readonly lifetimes: Lifetimes;
  readonly tags: readonly string[];
  /** The lease a fill writes under; `''` for a plain write. */
  readonly token: string;
  /** The fill holds the entry lease (its write is one `SET XX GET`). */
  readonly entryLease?: boolean;
  readonly version: BrandedId;
}

/**
 * A keyed namespace's fill steps for the one get-or-set handler: the lease-load ({@link leaseLoad})
 * goes through the key's L2 lease, the factory-run ({@link runFactory}) runs the call's factory
 * under its timeouts when this caller holds the lease, and the write-entry ({@link writeEntry},
 * which `set` shares) writes the answer to both tiers. All state is the namespace's {@link Tiers}.
 */
export class KeyedSteps<T> implements FillSteps<string, FactoryCall<T>, KeyedRead<T>, FactoryTicket<T>, EntryWrite<T>> {
  readonly #t: Tiers<T>;

  constructor(tiers: Tiers<T>) {
    this.#t = tiers;
  }

  get counters(): FlightCounters {
    return this.#t.counters;
  }

  get flights(): Flights<KeyedRead<T>> {
    return this.#t.flights;
  }

  missed(key: string): void {
    const t = this.#t;
    cacheMiss(t.name, key);
    if (t.events.listenerCount('miss') !== 0) t.events.emit('miss', { key });
  }

  joined(running: Promise<KeyedRead<T>>): Promise<KeyedRead<T>> {
    // Each caller gets its own copy under the `clone` read mode.
    return running.then((read) => ({ ...read, value: this.#t.copies.joined(read.value) }));
  }

  /**
   * One load of `key` across every process (the single flight's body). It reads first without the
   * lease (the tick's plain reads share one `MGET`, answered as buffers): a fresh entry costs what
   * `GET` costs. Only a missing entry, or one past its soft expiry, goes on to the lease rounds. Where
   * recent reads mostly missed (a cold keyspace), the plain read is skipped: the lease read answers a
   * fresh entry as well, and a miss then costs two round trips (lease, fill) instead of three. Each
   * round is one `cache_read` that answers a fresh frame, or hands this caller the key's L2 lease (it
   * then runs the factory), or says another process holds it (this caller waits for that fill's
   * coherence entry, or the lease's expiry, and asks again). A stale value in grace is served instead
   * of waiting. With L2 unreachable in the outage mode, an L1 value in grace is served, else the
   * factory runs and its answer stays in L1.
   *
   * @throws FactoryTimeoutError when no value arrives by `timeouts.hardMs` (default three leases).
   */
  async leaseLoad(key: string, call: FactoryCall<T>, flight: Flight): Promise<LeaseLoaded<KeyedRead<T>, FactoryTicket<T>>> {
    const t = this.#t;
    const { options } = call;
    const o = t.options;
    const local = t.l1.get(key);
    const now = t.now();
    let stale: StaleValue<T> | undefined = local !== undefined && now < local.graceUntil ? { value: t.copies.out(local), version: local.version } : undefined;
    if (options.forceFresh === true) return { load: { token: '', stale: undefined, entryLease: false } };
    const l2Key = cacheEntryKey(t.name, key);
    // The entry lease first: a miss takes it in the one command that found the entry absent. A frame
    // past its soft expiry is still there (its grace serves it), so its refresh takes the lease key,
    // at once when the plain read already found that frame.
    let entryLease = true;
    if (!t.misses.mostlyMissing) {
      let first: Buffer | null;
      try {
        first = await t.guard.call('get', () => t.reads.read(l2Key));
      } catch (error) {
        if (!t.guard.fallsBack) throw error;
        if (stale !== undefined && local !== undefined) return { answer: t.fallback(key, local) };
        return { load: { token: null, stale: undefined, entryLease: false } };
      }
      const frame = first === null ? undefined : decodeEntryFrame(l2Key, first);
      const fresh = frame !== undefined && (frame.expiresAt === 0 || frame.expiresAt > t.now());
      t.misses.saw(fresh);
      if (fresh) {
        t.counters.l2Hits++;
        return { answer: { value: t.admitFrame(key, frame, flight), source: 'l2', version: frame.version } };
      }
      if (frame !== undefined) {
        entryLease = false;
        if (stale === undefined && o.graceMs > 0) stale = { value: t.admitFrame(key, frame, flight), version: frame.version };
      }
    }
    const token = nextLeaseToken();
    const hard = options.timeouts?.hardMs;
    const leaseMs = Math.max(o.leaseMs, hard ?? 0);
    const deadline = now + (hard ?? o.leaseMs * 3);
    const hex = o.codec.binary === true;
    let waited = false;
    for (;;) {
      let reply: LeaseRead;
      try {
        reply = await t.guard.call('read', () => (entryLease ? this.#entryLease(key, token, leaseMs, hex) : t.scripts.send(transitions.cacheRead({ namespace: t.name, key, token, leaseMs, hex }))));
      } catch (error) {
        if (!t.guard.fallsBack) throw error;
        if (stale !== undefined && local !== undefined) return { answer: t.fallback(key, local) };
        return { load: { token: null, stale: undefined, entryLease: false } };
      }
      const frame = reply.frame === null ? undefined : decodeEntryFrame(l2Key, reply.frame, hex);
      const fresh = reply.status === 'fresh' || (reply.status === 'found' && frame !== undefined && (frame.expiresAt === 0 || frame.expiresAt > t.now()));
      if (!waited) t.misses.saw(fresh);
      if (fresh && frame !== undefined) {
        const value = t.admitFrame(key, frame, flight);
        if (waited) t.counters.peerFills++;
        else t.counters.l2Hits++;
        return { answer: { value, source: waited ? 'peer' : 'l2', version: frame.version } };
      }
      // A stale frame still in L2 is within its grace: the server drops it when grace ends.
      if (stale === undefined && frame !== undefined && o.graceMs > 0) stale = { value: t.admitFrame(key, frame, flight), version: frame.version };
      if (reply.status === 'found') {
        entryLease = false;
        continue;
      }
      if (reply.status === 'leased') return { load: { token, stale, entryLease } };
      if (stale !== undefined) return { answer: t.stale(key, stale.value, stale.version, 'refreshing') };
      if (t.now() >= deadline) throw new FactoryTimeoutError(key, hard ?? o.leaseMs * 3);
      t.counters.leaseWaits++;
      waited = true;
      // Once waited, the entry lease is tried again: the fill may have ended, or its lease lapsed.
      entryLease = true;
      const until = Math.min(Math.max(reply.pttl, 1) + 2, deadline - t.now());
      // Without a log there is nothing to wake on: poll, at most at the lease's expiry.
      await t.waiters.wait(key, t.coherence !== null ? until : Math.min(until, 20));
      t.live();
    }
  }

  /**
   * The entry lease, in the one plain command that reads the entry (`SET NX PXAT GET`, no script),
   * sent in the tick's pipeline with the other misses: a miss takes it, a value comes back as text
   * (for a binary codec, alone, as the bytes). Only a lease that another caller holds and nobody has
   * marked waited goes on to `cache_read`, which marks it atomically (its fill then announces itself
   * on the log).
   */
  async #entryLease(key: string, token: string, leaseMs: number, hex: boolean): Promise<LeaseRead> {
    const t = this.#t;
    // The lease's end is on the wall clock: the server reads it as PXAT.
    const deadline = Date.now() + leaseMs;
    const take = writes.cacheEntryLease({ namespace: t.name, key, token, deadline, buffers: hex });
    const lease = await (hex ? writes.sendWrite(t.connection, take) : t.scripts.write(take));
    if (lease.status === 'leased') return { status: 'leased', frame: null, pttl: 0 };
    if (lease.status === 'found') return { status: 'found', frame: lease.frame, pttl: 0 };
    if (lease.waited) return { status: 'busy', frame: null, pttl: Math.max(0, lease.until - Date.now()) };
    return t.scripts.send(transitions.cacheRead({ namespace: t.name, key, token, leaseMs, hex, deadline }));
  }

  /**
   * Runs the factory for `key` under the call's soft and hard timeouts and writes what it answers
   * under the ticket's token (see {@link FactoryTicket}).
   *
   * Past the soft timeout with a stale value in grace, the stale value is answered and the factory
   * goes on to refresh the entry; past the hard timeout the call fails and the factory goes on too.
   * A factory that fails gives its lease back, so callers waiting elsewhere retry at once, and a
   * stale value in grace is served in its place. So does a factory that declines to cache its answer
   * (`ctx.skip()`, or `cacheIf` answering false): the answer goes to its callers uncached. An absent
   * answer (`undefined` or `null`) lives `negativeTtlMs` with no grace when one is set.
   *
   * @throws FactoryTimeoutError past `timeouts.hardMs`; the factory's own error when there is no stale value.
   */
  async runFactory(key: string, { factory, options }: FactoryCall<T>, { token, stale, entryLease }: FactoryTicket<T>, flight: Flight): Promise<KeyedRead<T>> {
    const t = this.#t;
    const o = t.options;
    // Minted before the factory runs: a write or delete announced while it loads is newer than its answer.
    const minted = mintId(VERSION_KIND);
    const started = t.now();
    let ttl = lifetime('ttlMs', options.ttlMs, o.ttlMs);
    let tags = options.tags ?? [];
    // What the factory said through its context, read once it has answered.
    const said = { ttl: false, skip: false };
    const ctx = {
      key,
      stale: stale?.value,
      setTtl: (ms: number) => {
        ttl = lifetime('ttlMs', ms, ttl);
        said.ttl = true;
      },
      setTags: (next: readonly string[]) => void (tags = checkTags(next)),
      skip: () => void (said.skip = true),
    };
    const cacheIf = options.cacheIf ?? ((value: T) => o.cacheIf?.(value) ?? true);
    const filled = (async (): Promise<KeyedRead<T>> => {
      const value = await factory(ctx);
      if (said.skip || !cacheIf(value)) {
        if (token !== null && token !== '') await this.#release(key, token, entryLease);
        t.counters.uncached++;
        return { value, source: 'uncached', version: undefined };
      }
      const negativeTtl = options.negativeTtlMs ?? o.negativeTtlMs;
      const lifetimes =
        negativeTtl !== undefined && !said.ttl && (value === undefined || value === null)
          ? { ttl: negativeTtl, grace: 0 }
          : { ttl, grace: nonNegative('graceMs', options.graceMs, o.graceMs) };
      const version = storedVersion(value, minted);
      if (token === null) {
        const encoded = this.#encode(key, value);
        t.admit(key, t.copies.owned(value, encoded), version, lifetimes, tags, flight);
        t.counters.fallbacks++;
        return { value, source: 'fallback-fill', version: undefined };
      }
      await this.writeEntry(key, { value, lifetimes, tags, token, entryLease, version }, flight);
      t.counters.fills++;
      cacheFill(t.name, key, t.now() - started);
      if (t.events.listenerCount('fill') !== 0) t.events.emit('fill', { key, version, ms: t.now() - started });
      return { value, source: 'fill', version };
    })();
    const failed = (error: unknown): void => {
      t.counters.factoryErrors++;
      t.events.emit('factory-error', { key, error });
      if (token !== null && token !== '') void this.#release(key, token, entryLease);
    };
    const { softMs: soft, hardMs: hard } = options.timeouts ?? {};
    const raced: Promise<KeyedRead<T> | 'soft' | 'hard'>[] = [filled];
    if (stale !== undefined && soft !== undefined) raced.push(delay(soft, 'soft'));
    if (hard !== undefined) raced.push(delay(hard, 'hard'));
    try {
      const first = raced.length === 1 ? await filled : await Promise.race(raced);
      if (first === 'soft' || first === 'hard') {
        filled.catch(failed);
        if (first === 'hard') throw new FactoryTimeoutError(key, hard ?? 0);
        const served = stale as StaleValue<T>;
        return t.stale(key, served.value, served.version, 'soft-timeout');
      }
      return first;
    } catch (error) {
      if (error instanceof FactoryTimeoutError) throw error;
      failed(error);
      if (stale !== undefined) return t.stale(key, stale.value, stale.version, 'factory-error');
      throw error;
    }
  }

  /**
   * Writes `value` to L2 (one `cache_write`, which also appends its coherence entry; under `token`
   * for a fill, `''` for a plain write) and then to this L1. A refused write (the fill lost its lease,
   * or L2 holds a newer frame) leaves L1 alone and is counted; in the outage mode an unreachable L2
   * still gets the value into L1 before the caller sees `L2UnavailableError`.
   */
  async writeEntry(key: string, { value, lifetimes, tags, token, entryLease, version }: EntryWrite<T>, flight: Flight | null): Promise<void> {
    const t = this.#t;
    const o = t.options;
    const expiresAt = lifetimes.ttl === Infinity ? 0 : t.now() + lifetimes.ttl;
    const encoded = this.#encode(key, value);
    const frame = encodeEntryFrame(version, expiresAt, encoded);
    // Without an L1 nothing is kept, so no copy is made.
    const admit = (): void => {
      if (o.l1) t.admit(key, t.copies.owned(value, encoded), version, lifetimes, tags, flight);
    };
    const px = lifetimes.ttl === Infinity ? 0 : lifetimes.ttl + lifetimes.grace;
    const graceMs = lifetimes.ttl === Infinity ? 0 : lifetimes.grace;
    const lease = entryLease === true ? { entryLease: { graceMs } } : { graceMs };
    const written = await t.guard.write('set', () => t.scripts.send(transitions.cacheWrite({ namespace: t.name, key, frame, px, token, maxlen: o.logMaxLen, tags, ...lease })), admit);
    if (!written) {
      t.counters.fillsRefused++;
      return;
    }
    admit();
  }

  /**
   * The value's bytes for L2, refused over the namespace's cap before anything is written. `undefined`
   * is no bytes: its frame says so by its version's kind (see `storedVersion`), not through the codec.
   */
  #encode(key: string, value: T): Buffer | string {
    if (value === undefined) return '';
    const encoded = this.#t.options.codec.encode(value);
    checkValueSize(`cache value for ${this.#t.name}/${key}`, encoded, this.#t.options.maxValueBytes);
    return encoded;
  }

  /** Gives a failed fill's lease back (its `r` log entry wakes the waiters); a lost release only makes them wait out the lease. */
  #release(key: string, token: string, entryLease: boolean): Promise<unknown> {
    const t = this.#t;
    return execute(t.connection, transitions.cacheRelease({ namespace: t.name, key, token, maxlen: t.options.logMaxLen, entryLease })).catch(() => undefined);
  }
}

/** Resolves with `value` after `ms`, without keeping the process alive. */
function delay<V>(ms: number, value: V): Promise<V> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}
