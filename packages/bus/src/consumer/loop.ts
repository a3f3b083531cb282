import { ConnectionLostError } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { isGroupPaused } from '../groups/controls.js';
import { Delivery, WAITING_BLOCK_MS } from './delivery.js';
import type { ConsumerSettings, GroupConsumerStats } from './options.js';
import type { Handling } from './runs.js';

/**
 * The beat of one group consumer, on its own connection: once a beat it asks whether its group is
 * paused; at start (and after a lost connection) it walks its own pending entries; once a beat it
 * claims idle ones; in between it reads new entries. It runs until closed, or until its connection
 * is gone for good.
 */
export class ConsumerLoop {
  readonly #ctx: StreamContext;
  readonly #group: string;
  readonly #settings: ConsumerSettings;
  readonly #delivery: Delivery;
  #paused = false;
  #nextPauseCheck = 0;
  #stopping = false;
  #exited = false;
  #wake: (() => void) | undefined;
  #done: Promise<void> = Promise.resolve();

  /** @param ctx the stream, spoken to over the consumer's own connection. */
  constructor(ctx: StreamContext, group: string, settings: ConsumerSettings, handling: Handling) {
    this.#ctx = ctx;
    this.#group = group;
    this.#settings = settings;
    this.#delivery = new Delivery(ctx, group, settings, handling, () => this.#stopping);
  }

  /** Registers an ordered group's position, then starts the beat. */
  async start(): Promise<void> {
    await this.#delivery.order?.start();
    this.#done = this.#run();
  }

  /** A snapshot of the counters. */
  stats(): GroupConsumerStats {
    return { ...this.#delivery.stats };
  }

  /** False once closing began, or once the loop gave up on its connection. */
  get running(): boolean {
    return !this.#stopping && !this.#exited;
  }

  /** True once closing began. */
  get closed(): boolean {
    return this.#stopping;
  }

  /**
   * Stops the loop and closes the connection: running handlers finish and are settled first; a
   * blocked read is cut at once. Idempotent.
   */
  async close(): Promise<void> {
    const conn = this.#ctx.conn;
    if (!this.#stopping) {
      this.#stopping = true;
      this.#wake?.();
      await this.#delivery.settled;
      if (!this.#delivery.busy) await conn.close({ immediate: true });
    }
    await this.#done;
    await conn.close();
  }

  async #run(): Promise<void> {
    const delivery = this.#delivery;
    let recover = true;
    while (!this.#stopping && this.#usable()) {
      const failure = await this.#guard(async () => {
        if (Date.now() >= this.#nextPauseCheck) {
          // One HEXISTS a beat: a pause reaches every consumer of the group within a beat or two.
          this.#paused = await isGroupPaused(this.#ctx, this.#group);
          this.#nextPauseCheck = Date.now() + this.#settings.beatMs;
        }
        if (this.#paused) {
          await this.#pause(this.#settings.beatMs);
          return;
        }
        if (recover) {
          await delivery.walk('self');
          recover = false;
        }
        if (delivery.claimDue(Date.now())) await delivery.walk('idle');
        const order = delivery.order;
        if (order !== undefined && order.waiting > 0) {
          await order.recheck();
          await delivery.settled;
          // A full backlog of waiting entries reads nothing more until some of them ran.
          if (order.waiting >= this.#settings.count) {
            await this.#pause(WAITING_BLOCK_MS);
            return;
          }
        }
        await delivery.readNew();
      });
      if (failure instanceof ConnectionLostError) {
        // A read whose reply was lost with the socket may still have put entries on this
        // consumer's pending list; recovering self again hands them over now, not after minIdle.
        // No back-off either: the next command waits at the connector's gate for the reconnect.
        recover = true;
      } else if (failure !== undefined && this.running) {
        // Anything else (a deleted group, a key of the wrong type) would fail again at once.
        await this.#pause(this.#settings.beatMs);
      }
    }
    await delivery.settled;
    this.#exited = true;
  }

  /** Runs one step; a failure the loop can survive is reported and returned. */
  async #guard(step: () => Promise<void>): Promise<unknown> {
    try {
      await step();
      return undefined;
    } catch (error) {
      if (!this.#stopping) this.#settings.onError(error);
      return error ?? new Error('undefined thrown');
    }
  }

  /** A fenced-out or closed connection will not come back; the loop stops instead of spinning. */
  #usable(): boolean {
    const status = this.#ctx.conn.status;
    return status !== 'fatal' && status !== 'closed';
  }

  /** Waits `ms`, or less when close() wakes it. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
