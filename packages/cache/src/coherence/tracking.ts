import { type Connection, INVALIDATE_CHANNEL, InvalidArgumentError, openTracking, type Tracking, cachePrefix } from '@echo/protocol/cache';
import { TrackingArmError } from '../errors.js';
import type { TrackingStats } from '../stats.js';
import type { CoherenceLane, CoherenceTarget } from './source.js';

/** The channel the server publishes redirected invalidations on. */
export { INVALIDATE_CHANNEL };

/**
 * The tracking lane (cache.md §7.5): server-assisted client caching in broadcast mode, so any write
 * under `ecc:{<table>}:`, by anyone, evicts the id from this process's L1. The connector's
 * {@link openTracking} does the wire work (a dedicated, fenced connection that turns
 * tracking on again after every reconnect); this lane maps its events onto L1.
 *
 * While the connection is down no invalidation can arrive, so L1 is flushed and takes no rows until
 * tracking is armed again; after the re-arm L1 is flushed once more, which also discards whatever a
 * fill read before the arm.
 */
export class TrackingLane implements CoherenceLane {
  readonly #target: CoherenceTarget;
  readonly #prefix: string;
  #tracking: Tracking | undefined;
  #stopped = false;
  #arms = 0;
  #invalidations = 0;
  #flushes = 0;
  #malformed = 0;

  private constructor(target: CoherenceTarget) {
    this.#target = target;
    this.#prefix = cachePrefix(target.name);
  }

  /**
   * Connects and arms tracking.
   *
   * @throws InvalidArgumentError on a cluster, where tracking is per node and one connection cannot
   *   cover a table.
   * @throws TrackingArmError when the server refuses to arm (a configuration error).
   */
  static async start(connection: Connection, target: CoherenceTarget): Promise<TrackingLane> {
    if (connection.isCluster) throw new InvalidArgumentError('coherence', 'tracking needs a standalone server; use broadcast on a cluster');
    const lane = new TrackingLane(target);
    let tracking: Tracking;
    try {
      tracking = await openTracking(connection, [lane.#prefix], (keys) => lane.#receive(keys), { name: `echo-cache-trk-${target.name}` });
    } catch (error) {
      throw new TrackingArmError(target.name, error);
    }
    lane.#tracking = tracking;
    lane.#armed();
    tracking.on('armed', () => lane.#armed());
    tracking.on('lost', () => lane.#flush());
    return lane;
  }

  get trusted(): boolean {
    return this.#tracking?.armed === true;
  }

  stats(): TrackingStats {
    return {
      lane: 'tracking',
      arms: this.#arms,
      invalidations: this.#invalidations,
      flushes: this.#flushes,
      malformed: this.#malformed,
      armed: this.trusted,
    };
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    // Tracking state lives on the connection and dies with it; nothing to turn off first.
    await this.#tracking?.close();
  }

  #armed(): void {
    this.#arms++;
    this.#flush();
  }

  #flush(): void {
    this.#flushes++;
    this.#target.flush();
  }

  #receive(keys: readonly string[] | null): void {
    if (this.#stopped) return;
    this.#invalidations++;
    // Null: the server dropped its tracking table (FLUSHALL, FLUSHDB, memory): all of L1.
    if (keys === null) {
      this.#flush();
      return;
    }
    for (const key of keys) {
      if (!key.startsWith(this.#prefix)) {
        this.#malformed++;
        continue;
      }
      this.#target.evict(key.slice(this.#prefix.length));
    }
  }
}
