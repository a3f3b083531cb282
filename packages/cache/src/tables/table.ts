import { type BrandedId, assertBrandedId, execute, mintId, transitions, writes, RenamedError } from '@echo/protocol/cache';
import { BroadcastLane, publishCoherence } from '../coherence/broadcast.js';
import { newer } from '../coherence/message.js';
import { TrackingLane } from '../coherence/tracking.js';
import { GetOrSet } from '../core/get-or-set.js';
import type { Row } from '../core/rows.js';
import { closeFace } from '../core/shutdown.js';
import { checkKind } from './kind-law.js';
import { type ResolvedSpec, type TableSettings, settingsOf } from './spec.js';
import type { CacheStats } from '../base/stats.js';
import type { Fetched, TableRuntime } from './fetched.js';
import { type RowWrite, TableSteps } from './fill-steps.js';
import { TableTiers } from './tiers.js';

export type { Fetched, Source, TableRuntime } from './fetched.js';

/**
 * One declared cache table: a typed handle over an L1 `Map` and L2 keys `ecc:{<name>}:<id>`, with
 * single-flight fills, jittered expiry and an optional coherence lane. Obtain one from
 * `Cache.declare` (or `Cache.table`); after {@link Table.close} every call throws {@link NoSuchCacheError}.
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
  // The face: verbs check their arguments here and act on the tiers; misses go to the handler.
  readonly #t: TableTiers<T, K>;
  readonly #getOrSet: GetOrSet<BrandedId<K>, undefined, Fetched<T>, BrandedId, RowWrite<T>>;
  #sweeper: NodeJS.Timeout | undefined;

  private constructor(spec: ResolvedSpec<T, K>, runtime: TableRuntime) {
    this.name = spec.name;
    this.kind = spec.kind;
    this.settings = Object.freeze(settingsOf(spec));
    this.#t = new TableTiers(spec, runtime);
    this.#getOrSet = new GetOrSet(new TableSteps(this.#t));
  }

  /**
   * Starts a table: its coherence lane first (a tracking lane that cannot arm is a configuration
   * error, cache.md §7.5), then its sweeper. Use `Cache.declare`, which also lists it.
   *
   * @internal
   */
  static async open<T, K extends string>(spec: ResolvedSpec<T, K>, runtime: TableRuntime): Promise<Table<T, K>> {
    const table = new Table(spec, runtime);
    const t = table.#t;
    const target = t.target((id, version) => table.applyCoherence(id as BrandedId<K>, version));
    if (spec.coherence === 'broadcast') t.lane = await BroadcastLane.start(runtime.connection, target, spec.ringCapacity);
    else if (spec.coherence === 'tracking') t.lane = await TrackingLane.start(runtime.connection, target);
    table.#sweeper = setInterval(() => t.l1.sweep(runtime.now()), spec.sweepMs);
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
    this.#t.live();
    checkKind(this.name, this.kind, id);
    const hit = this.#t.hit(id);
    if (hit !== undefined) return hit;
    // The spec re-checks L1 here because a BEAM caller can be preempted between the two looks; in
    // TS nothing runs in between, so the first look stands and the miss goes straight to the flight.
    return this.#getOrSet.handle(id, undefined);
  }

  /** The L1 row for `id`, live or expired, without counting a read. For tests and diagnostics. */
  peek(id: BrandedId<K>): Row<T> | undefined {
    this.#t.live();
    return this.#t.l1.get(checkKind(this.name, this.kind, id));
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
    this.#t.live();
    checkKind(this.name, this.kind, id);
    if (version !== undefined) assertBrandedId(version);
    const written = version ?? mintId(this.kind);
    await this.#getOrSet.write(id, { value, version: written });
    return written;
  }

  /**
   * The admin verb (cache.md §5): deletes the L2 key and the L1 row, whatever their versions, and
   * keeps a fill already running for `id` from caching what it read.
   *
   * @throws KindError for an id of another kind.
   */
  async invalidate(id: BrandedId<K>): Promise<void> {
    this.#t.live();
    checkKind(this.name, this.kind, id);
    await writes.sendWrite(this.#t.runtime.connection, writes.cacheRowDelete({ table: this.name, id }));
    this.#t.l1.delete(id);
    this.#t.spoil(id);
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
    this.#t.live();
    checkKind(this.name, this.kind, id);
    assertBrandedId(version);
    const t = this.#t;
    t.noteVersion(id, version);
    const row = t.l1.get(id);
    if (row !== undefined && newer(version, row.version)) {
      t.l1.delete(id);
      t.counters.cohApplied++;
      return 'applied';
    }
    t.counters.cohStale++;
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
    this.#t.live();
    checkKind(this.name, this.kind, id);
    return publishCoherence(this.#t.runtime.connection, this.name, id, version);
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
    this.#t.live();
    checkKind(this.name, this.kind, id);
    assertBrandedId(version);
    return execute(this.#t.runtime.connection, transitions.coherenceDrop({ table: this.name, id, version }));
  }

  /** A snapshot of the counters (cache.md §8), L1's `size`, and the lane's counters. */
  stats(): CacheStats {
    const { l1, counters, lane } = this.#t;
    return { ...counters, swept: l1.expired, fullSkips: l1.fullSkips, sweeps: l1.sweeps, size: l1.size, lane: lane?.stats() ?? null };
  }

  /** True once {@link close} has been called. */
  get closed(): boolean {
    return this.#t.stopped;
  }

  /** @deprecated Use {@link closed}. */
  get stopped(): boolean {
    return this.#t.stopped;
  }

  /**
   * Closes the table: it leaves the directory at once (cache.md §1), its sweeper and lane stop, and
   * L1 is emptied. Fills already running still answer their waiters. Idempotent.
   */
  close(): Promise<void> {
    const t = this.#t;
    return closeFace(t, { leave: () => t.runtime.onStop(this.name), sweeper: this.#sweeper, source: t.lane });
  }

  /**
   * Renamed {@link close}; refused, so one name stays in use.
   *
   * @deprecated Use {@link close}.
   * @throws RenamedError (from `@echo/protocol`) always, naming `close()`.
   */
  stop(): never {
    throw new RenamedError('Table.stop()', 'Table.close()');
  }
}
