import { type BrandedId, type Connection, assertBrandedId, cacheKey, checkValueSize, execute, mintId, reads, transitions, writes } from '@echo/protocol';
import { BroadcastLane, publishCoherence } from './coherence/broadcast.js';
import type { CoherenceLane, CoherenceTarget } from './coherence/source.js';
import { newer } from './coherence/message.js';
import { TrackingLane } from './coherence/tracking.js';
import { NoSuchCacheError } from './errors.js';
import { expiresAt } from './expiry.js';
import { decodeFrame, encodeFrame } from './frame.js';
import { checkKind } from './kind-law.js';
import { L1 } from './core/l1.js';
import { type Row, rowDead } from './core/rows.js';
import { type Flight, Flights } from './single-flight.js';
import { type ResolvedSpec, type TableSettings, settingsOf } from './spec.js';
import { type CacheStats, emptyCounters } from './stats.js';
import { Versioned } from './versioned.js';

/** Where a fetched value came from (cache.md §3). */
export type Source = 'hit' | 'l2' | 'fill';

/** The answer to a fetch: the value, its version, and which tier produced it. */
export interface Fetched<T> {
  readonly value: T;
  readonly source: Source;
  readonly version: BrandedId;
}

/** What a table takes from its directory. */
export interface TableRuntime {
  readonly connection: Connection;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /** Uniform in `[0, 1)`, for expiry jitter. */
  readonly random: () => number;
  /** Called once when the table stops, so the directory forgets it. */
  readonly onStop: (name: string) => void;
}

/**
 * One declared cache table: a typed handle over an L1 `Map` and L2 keys `ecc:{<name>}:<id>`, with
 * single-flight fills, jittered expiry and an optional coherence lane. Obtain one from
 * `Cache.declare` (or `Cache.table`); after {@link Table.stop} every call throws {@link NoSuchCacheError}.
 *
 * @typeParam T the value type, carried by the table's codec.
 * @typeParam K the id namespace, so a `USR` table refuses a `JOB` id at compile time as well.
 */
export class Table<T, K extends string = string> {
  /** The table's name, its L2 hashtag. */
  readonly name: string;
  /** The namespace every id must carry. */
  readonly kind: K;
  /** The declared settings, defaults applied. */
  readonly settings: TableSettings;
  readonly #spec: ResolvedSpec<T, K>;
  readonly #runtime: TableRuntime;
  readonly #counters = emptyCounters();
  readonly #l1: L1<Row<T>>;
  readonly #flights = new Flights<Fetched<T>>();
  #lane: CoherenceLane | null = null;
  #sweeper: NodeJS.Timeout | undefined;
  #stopped = false;

  private constructor(spec: ResolvedSpec<T, K>, runtime: TableRuntime) {
    this.name = spec.name;
    this.kind = spec.kind;
    this.settings = Object.freeze(settingsOf(spec));
    this.#spec = spec;
    this.#runtime = runtime;
    this.#l1 = new L1<Row<T>>({ maxSize: spec.maxSize, eviction: 'skip', dead: rowDead, name: spec.name });
  }

  /**
   * Starts a table: its coherence lane first (a tracking lane that cannot arm is a configuration
   * error, cache.md §7.5), then its sweeper. Use `Cache.declare`, which also lists it.
   *
   * @internal
   */
  static async open<T, K extends string>(spec: ResolvedSpec<T, K>, runtime: TableRuntime): Promise<Table<T, K>> {
    const table = new Table(spec, runtime);
    const target = table.#target();
    if (spec.coherence === 'broadcast') table.#lane = await BroadcastLane.start(runtime.connection, target, spec.ringCapacity);
    else if (spec.coherence === 'tracking') table.#lane = await TrackingLane.start(runtime.connection, target);
    table.#sweeper = setInterval(() => table.#l1.sweep(runtime.now()), spec.sweepMs);
    // A cache must not keep a process alive that has nothing else to do.
    table.#sweeper.unref();
    return table;
  }

  /**
   * Reads through both tiers (cache.md §3, §4): a live L1 row answers `hit`; otherwise one fill per
   * herd reads L2 (`l2`) or calls the loader and writes L2 (`fill`), and every waiter gets its
   * answer or its error. Nothing is cached when the fill fails.
   *
   * @throws KindError, before either tier is touched, when `id` is not a branded id of this kind.
   * @throws CorruptL2FrameError when L2 holds fewer than 14 bytes; FlightCrashedError when the loader
   *   throws a non-`Error`; otherwise the loader's, the codec's or the server's error as it is.
   */
  async fetch(id: BrandedId<K>): Promise<Fetched<T>> {
    this.#live();
    checkKind(this.name, this.kind, id);
    const hit = this.#hit(id);
    if (hit !== undefined) return hit;
    this.#counters.misses++;
    // The spec re-checks L1 here because a BEAM caller can be preempted between the two looks; in
    // TS nothing runs in between, so the first look stands and the miss goes straight to the flight.
    const running = this.#flights.join(id);
    if (running !== undefined) {
      this.#counters.coalesced++;
      return running;
    }
    return this.#flights.start(id, (flight) => this.#fill(id, flight));
  }

  /** The L1 row for `id`, live or expired, without counting a read. For tests and diagnostics. */
  peek(id: BrandedId<K>): Row<T> | undefined {
    this.#live();
    return this.#l1.get(checkKind(this.name, this.kind, id));
  }

  /**
   * Writes a value to L2 (`SET … PX ttlMs`) and then L1 (cache.md §5). It sends no coherence: the
   * writer decides whether and how to tell others, with the returned version ({@link broadcast}).
   *
   * @param version the write's version; minted now in the table's kind when omitted.
   * @returns the version written.
   * @throws KindError for an id of another kind; MalformedIdError for a bad `version`.
   */
  async put(id: BrandedId<K>, value: T, version?: BrandedId): Promise<BrandedId> {
    this.#live();
    checkKind(this.name, this.kind, id);
    if (version !== undefined) assertBrandedId(version);
    const written = version ?? mintId(this.kind);
    const frame = encodeFrame(written, this.#encode(id, value));
    await writes.sendWrite(this.#runtime.connection, writes.cacheRowSet({ table: this.name, id, frame, ttlMs: this.#spec.ttlMs }));
    // A fill that read the older frame before this SET must not land on top of it.
    this.#noteVersion(id, written);
    this.#admit(id, value, written);
    return written;
  }

  /**
   * The admin verb (cache.md §5): deletes the L2 key and the L1 row, whatever their versions, and
   * keeps a fill already running for `id` from caching what it read.
   *
   * @throws KindError for an id of another kind.
   */
  async invalidate(id: BrandedId<K>): Promise<void> {
    this.#live();
    checkKind(this.name, this.kind, id);
    await writes.sendWrite(this.#runtime.connection, writes.cacheRowDelete({ table: this.name, id }));
    this.#l1.delete(id);
    this.#spoil(id);
  }

  /**
   * Applies a coherence message to L1 only (cache.md §7.3): the row goes if `version` is newer than
   * its own, counting `cohApplied`; otherwise `cohStale`. Applying the same message twice answers
   * `stale` the second time. A fill running for `id` remembers the version and will not cache an
   * older answer.
   *
   * @throws KindError for an id of another kind; MalformedIdError for a bad `version`.
   */
  applyCoherence(id: BrandedId<K>, version: BrandedId): 'applied' | 'stale' {
    this.#live();
    checkKind(this.name, this.kind, id);
    assertBrandedId(version);
    this.#noteVersion(id, version);
    const row = this.#l1.get(id);
    if (row !== undefined && newer(version, row.version)) {
      this.#l1.delete(id);
      this.#counters.cohApplied++;
      return 'applied';
    }
    this.#counters.cohStale++;
    return 'stale';
  }

  /**
   * Sends `<id>:<version>` on the table's broadcast channel (cache.md §7.5), typically right after
   * {@link put} with the version it returned. Any table may send, whatever lane it listens on.
   *
   * @returns how many subscribers received it.
   * @throws KindError for an id of another kind; MalformedIdError for a bad `version`.
   */
  async broadcast(id: BrandedId<K>, version: BrandedId): Promise<number> {
    this.#live();
    checkKind(this.name, this.kind, id);
    return publishCoherence(this.#runtime.connection, this.name, id, version);
  }

  /**
   * Conditional L2 drop (cache.md §7.4, script `coherence_drop`): deletes the L2 frame only if
   * `version` is newer than the frame's, or the frame is corrupt. A late, stale message can
   * therefore never remove a newer row. Use it when the new value is not being written to L2.
   *
   * @returns whether the frame was dropped.
   * @throws KindError for an id of another kind; MalformedIdError for a bad `version`.
   */
  async dropL2(id: BrandedId<K>, version: BrandedId): Promise<boolean> {
    this.#live();
    checkKind(this.name, this.kind, id);
    assertBrandedId(version);
    return execute(this.#runtime.connection, transitions.coherenceDrop({ table: this.name, id, version }));
  }

  /** A snapshot of the counters (cache.md §8), L1's `size`, and the lane's counters. */
  stats(): CacheStats {
    const l1 = this.#l1;
    return { ...this.#counters, swept: l1.expired, fullSkips: l1.fullSkips, sweeps: l1.sweeps, size: l1.size, lane: this.#lane?.stats() ?? null };
  }

  /** True once {@link stop} has been called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Stops the table: it leaves the directory at once (cache.md §1), its sweeper and lane stop, and
   * L1 is emptied. Fills already running still answer their waiters. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#runtime.onStop(this.name);
    clearInterval(this.#sweeper);
    this.#l1.clear();
    await this.#lane?.stop();
  }

  #live(): void {
    if (this.#stopped) throw new NoSuchCacheError(this.name);
  }

  #hit(id: string): Fetched<T> | undefined {
    const row = this.#l1.get(id);
    if (row === undefined || !(this.#runtime.now() < row.expiresAt)) return undefined;
    this.#counters.hits++;
    return { value: row.value, source: 'hit', version: row.version };
  }

  /** The value's bytes for L2, refused over the table's cap before anything is written. */
  #encode(id: BrandedId<K>, value: T): Buffer | string {
    const encoded = this.#spec.codec.encode(value);
    checkValueSize(`cache value for ${this.name}/${id}`, encoded, this.#spec.maxValueBytes);
    return encoded;
  }

  async #fill(id: BrandedId<K>, flight: Flight): Promise<Fetched<T>> {
    const defaultVersion = mintId(this.kind);
    const key = cacheKey(this.name, id);
    const frame = await reads.sendRead(this.#runtime.connection, reads.cacheRowGet({ table: this.name, id }));
    let fetched: Fetched<T>;
    if (frame !== null) {
      const { version, bytes } = decodeFrame(key, frame);
      fetched = { value: this.#spec.codec.decode(bytes), source: 'l2', version };
      this.#counters.l2Hits++;
    } else {
      const loaded = await this.#spec.loader(id);
      const { value, version } = loaded instanceof Versioned ? loaded : { value: loaded, version: defaultVersion };
      const encoded = this.#encode(id, value);
      await writes.sendWrite(this.#runtime.connection, writes.cacheRowSet({ table: this.name, id, frame: encodeFrame(version, encoded), ttlMs: this.#spec.ttlMs }));
      this.#counters.fills++;
      fetched = { value, source: 'fill', version };
    }
    if (!this.#stopped && !flight.spoiled && !(flight.newest !== null && newer(flight.newest, fetched.version))) {
      const existing = this.#l1.get(id);
      // A put that landed while this fill ran holds a newer row; keep it.
      if (existing === undefined || !newer(existing.version, fetched.version)) this.#admit(id, fetched.value, fetched.version);
    }
    return fetched;
  }

  #admit(id: string, value: T, version: BrandedId): void {
    if (this.#stopped || !(this.#lane?.trusted ?? true)) return;
    const now = this.#runtime.now();
    const row: Row<T> = { value, version, expiresAt: expiresAt(now, this.#spec.ttlMs, this.#spec.jitter, this.#runtime.random) };
    this.#l1.set(id, row, now);
  }

  #noteVersion(id: string, version: string): void {
    const flight = this.#flights.flight(id);
    if (flight !== undefined && (flight.newest === null || newer(version, flight.newest))) flight.newest = version;
  }

  #spoil(id: string): void {
    const flight = this.#flights.flight(id);
    if (flight !== undefined) flight.spoiled = true;
  }

  #target(): CoherenceTarget {
    return {
      name: this.name,
      kind: this.kind,
      applyCoherence: (id, version) => this.applyCoherence(id as BrandedId<K>, version),
      evict: (id) => {
        this.#spoil(id);
        const dropped = this.#l1.delete(id);
        if (dropped) this.#counters.cohApplied++;
        else this.#counters.cohStale++;
        return dropped;
      },
      flush: () => {
        this.#l1.clear();
        for (const flight of this.#flights.flights()) flight.spoiled = true;
      },
    };
  }
}
