import { type BrandedId, type Connection, KindError, cacheChannel, writes } from '@echo/protocol/cache';
import type { BroadcastStats } from '../base/stats.js';
import type { CoherenceLane, CoherenceTarget } from './source.js';
import { type CoherenceMessage, encodeMessage, parseMessage } from './message.js';
import { Ring } from './ring.js';

/**
 * How many messages one drain applies before yielding. Large enough that a burst costs few wakes,
 * small enough that a flood of coherence cannot hold the event loop away from reads for long.
 */
export const DRAIN_BATCH = 256;

/**
 * Sends a coherence message on the broadcast lane: `PUBLISH ecc:{<table>}:coh <id>:<version>`
 * (cache.md §7.5). At most once: a subscriber that is down misses it and serves its row for at
 * most one TTL. Answers how many subscribers received it.
 *
 * @throws MalformedIdError when `id` or `version` is not a branded id.
 */
export async function publishCoherence(connection: Connection, table: string, id: BrandedId, version: BrandedId): Promise<number> {
  return writes.sendWrite(connection, writes.cacheCoherencePublish({ table, message: encodeMessage(id, version) }));
}

/**
 * The receiving side of the broadcast lane: a dedicated subscribed connection feeding a bounded
 * ring, drained in arrival order by one applier. The subscriber callback only parses and pushes,
 * so a slow applier costs dropped (counted) messages, never a blocked socket.
 *
 * Kept in one file, with {@link publishCoherence}: the declared tables' lane (keyed namespaces use their log).
 */
export class BroadcastLane implements CoherenceLane {
  readonly trusted = true;
  readonly #target: CoherenceTarget;
  readonly #channel: string;
  readonly #subscriber: Connection;
  readonly #ring: Ring<CoherenceMessage>;
  #draining = false;
  #stopped = false;
  #published = 0;
  #applied = 0;
  #dropped = 0;
  #wakes = 0;
  #batches = 0;
  #malformed = 0;

  private constructor(target: CoherenceTarget, subscriber: Connection, capacity: number) {
    this.#target = target;
    this.#channel = cacheChannel(target.name);
    this.#subscriber = subscriber;
    this.#ring = new Ring(capacity);
  }

  /** Opens the subscriber (a duplicate of `connection`) and subscribes to the table's channel. */
  static async start(connection: Connection, target: CoherenceTarget, capacity: number): Promise<BroadcastLane> {
    const subscriber = await connection.duplicate(`echo-cache-coh-${target.name}`);
    const lane = new BroadcastLane(target, subscriber, capacity);
    try {
      // Through the connector, which re-issues it after every reconnect once the fence has passed.
      await subscriber.subscribe([lane.#channel], { buffers: true, onMessage: ({ payload }) => lane.#receive(payload) });
    } catch (error) {
      await subscriber.close({ immediate: true });
      throw error;
    }
    return lane;
  }

  stats(): BroadcastStats {
    return {
      lane: 'broadcast',
      published: this.#published,
      applied: this.#applied,
      dropped: this.#dropped,
      wakes: this.#wakes,
      batches: this.#batches,
      malformed: this.#malformed,
      pending: this.#ring.length,
    };
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#ring.clear();
    await this.#subscriber.close({ immediate: true });
  }

  #receive(payload: Buffer): void {
    if (this.#stopped) return;
    const message = parseMessage(payload);
    if (message === null) {
      this.#malformed++;
      return;
    }
    if (!this.#ring.push(message)) {
      this.#dropped++;
      return;
    }
    this.#published++;
    if (!this.#draining) {
      this.#draining = true;
      this.#wakes++;
      setImmediate(() => this.#drain());
    }
  }

  #drain(): void {
    if (this.#stopped) return;
    this.#batches++;
    for (let i = 0; i < DRAIN_BATCH; i++) {
      const message = this.#ring.shift();
      if (message === undefined) break;
      this.#apply(message);
    }
    if (this.#ring.length > 0) setImmediate(() => this.#drain());
    else this.#draining = false;
  }

  #apply(message: CoherenceMessage): void {
    try {
      this.#target.applyCoherence(message.id, message.version);
      this.#applied++;
    } catch (error) {
      // Another kind on our channel is a foreign writer's mistake; it must not stop the applier.
      if (!(error instanceof KindError)) throw error;
      this.#malformed++;
    }
  }
}
