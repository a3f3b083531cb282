import { type Connection, InvalidArgumentError, cachePrefix, reconnectDelay } from '@echo/protocol';
import { Redis } from 'ioredis';
import { TrackingArmError } from '../errors.js';
import type { TrackingStats } from '../stats.js';
import type { CoherenceLane, CoherenceTarget } from './lane.js';

/** The channel the server publishes redirected invalidations on. */
export const INVALIDATE_CHANNEL = '__redis__:invalidate';

/**
 * The tracking lane (cache.md §7.5): server-assisted client caching in broadcast mode, so any write
 * under `ecc:{<table>}:`, by anyone, evicts the id from this process's L1.
 *
 * The spec asks for `CLIENT TRACKING ON BCAST PREFIX` on a RESP3 connection reading `invalidate`
 * pushes. ioredis 6 parses RESP3 pushes but hands only pub/sub ones to the application: its data
 * handler discards an `invalidate` push. This lane therefore uses the server's other delivery, the
 * REDIRECT form: one dedicated RESP2 connection turns tracking on with `REDIRECT <its own id>`, then
 * subscribes to `__redis__:invalidate`, and the server sends each invalidation there as a pub/sub
 * message. The server's rule is the same (protocol 2 target + subscribed → message; protocol 3 target
 * → push), so nothing is lost by the change of carrier.
 *
 * While the connection is down no invalidation can arrive, so L1 is flushed and takes no rows until
 * tracking is armed again; after the re-arm L1 is flushed once more, which also discards whatever a
 * fill read before the arm.
 */
export class TrackingLane implements CoherenceLane {
  readonly #target: CoherenceTarget;
  readonly #prefix: string;
  readonly #client: Redis;
  #armed = false;
  #stopped = false;
  #generation = 0;
  #arms = 0;
  #invalidations = 0;
  #flushes = 0;
  #malformed = 0;

  private constructor(target: CoherenceTarget, connection: Connection) {
    this.#target = target;
    this.#prefix = cachePrefix(target.name);
    const o = connection.options;
    this.#client = new Redis({
      host: o.host,
      port: o.port,
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      db: o.db,
      connectionName: `echo-cache-trk-${target.name}`,
      // RESP2 is the point: see the class comment.
      protocol: 2,
      lazyConnect: true,
      // Tracking must be turned on before SUBSCRIBE (a RESP2 subscriber takes no other command), so
      // the lane re-subscribes itself rather than letting ioredis do it first.
      autoResubscribe: false,
      autoResendUnfulfilledCommands: false,
      enableReadyCheck: false,
      disableClientInfo: true,
      maxRetriesPerRequest: null,
      connectTimeout: o.connectTimeoutMs,
      retryStrategy: (attempt) => (this.#stopped ? null : reconnectDelay(attempt)),
    });
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
    const lane = new TrackingLane(target, connection);
    const client = lane.#client;
    // An 'error' event without a listener would crash the process; the close handler does the work.
    client.on('error', () => undefined);
    client.on('messageBuffer', (channel: Buffer, message: unknown) => lane.#receive(channel, message));
    try {
      await client.connect();
      await lane.#arm(lane.#generation);
    } catch (error) {
      lane.#stopped = true;
      client.disconnect(false);
      throw new TrackingArmError(target.name, error);
    }
    client.on('close', () => lane.#lost());
    client.on('ready', () => void lane.#rearm());
    return lane;
  }

  get admitting(): boolean {
    return this.#armed;
  }

  stats(): TrackingStats {
    return {
      lane: 'tracking',
      arms: this.#arms,
      invalidations: this.#invalidations,
      flushes: this.#flushes,
      malformed: this.#malformed,
      armed: this.#armed,
    };
  }

  stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#armed = false;
      // Tracking state lives on the connection and dies with it; nothing to turn off first.
      this.#client.disconnect(false);
    }
    return Promise.resolve();
  }

  async #arm(generation: number): Promise<void> {
    const id = String(await this.#client.call('CLIENT', 'ID'));
    await this.#client.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id, 'BCAST', 'PREFIX', this.#prefix);
    await this.#client.subscribe(INVALIDATE_CHANNEL);
    // A close during the arm means this arm's connection is gone; the next ready arms again.
    if (generation !== this.#generation || this.#stopped) return;
    this.#arms++;
    this.#armed = true;
    this.#flush();
  }

  async #rearm(): Promise<void> {
    if (this.#stopped) return;
    const generation = this.#generation;
    try {
      await this.#arm(generation);
    } catch {
      // Unarmed, L1 takes nothing; dropping the socket retries the arm on the reconnect schedule.
      // A stop or a close since the arm began has bumped the generation, and this socket is done.
      if (generation === this.#generation) this.#client.disconnect(true);
    }
  }

  #lost(): void {
    this.#generation++;
    if (!this.#armed) return;
    this.#armed = false;
    this.#flush();
  }

  #flush(): void {
    this.#flushes++;
    this.#target.flush();
  }

  #receive(channel: Buffer, payload: unknown): void {
    if (this.#stopped || channel.toString('latin1') !== INVALIDATE_CHANNEL) return;
    this.#invalidations++;
    // A nil payload means the server dropped its tracking table (FLUSHALL, FLUSHDB, memory): all of L1.
    if (payload === null || payload === undefined) {
      this.#flush();
      return;
    }
    const keys = Array.isArray(payload) ? (payload as unknown[]) : [payload];
    for (const key of keys) {
      const text = Buffer.isBuffer(key) ? key.toString('latin1') : typeof key === 'string' ? key : '';
      if (!text.startsWith(this.#prefix)) {
        this.#malformed++;
        continue;
      }
      this.#target.evict(text.slice(this.#prefix.length));
    }
  }
}
