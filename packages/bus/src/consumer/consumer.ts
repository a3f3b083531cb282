import { InvalidArgumentError } from '@echo/protocol/bus';
import { onConnection, type StreamContext } from '../core/context.js';
import { assertMemberName, openGroup } from '../groups/open.js';
import { ConsumerLoop } from './loop.js';
import { settingsOf, type ConsumeOptions, type GroupBatchHandler, type GroupConsumerStats, type GroupHandler } from './options.js';
import type { Handling } from './runs.js';

/**
 * Starts a {@link GroupConsumer}: checks the handler and the options (a bad value fails here and
 * sends nothing), opens the group (an existing one is fine), opens a connection of its own
 * duplicated from the stream's, and starts the loop. `Stream.consume` and `Stream.consumeBatch`
 * call it; the class has no public way in.
 *
 * @throws InvalidArgumentError for a bad option, name or handler.
 * @throws ServerError when the group cannot be opened (for example `WRONGTYPE`).
 */
export let startConsumer: (ctx: StreamContext, group: string, handler: GroupHandler | GroupBatchHandler, batch: boolean, options: ConsumeOptions) => Promise<GroupConsumer>;

/**
 * One consumer of a stream's consumer group (bus.md §7.2), on a connection of its own because its
 * reads block. At start it works through its own pending entries; then, once per beat, it claims
 * entries that peers (or it) left idle for `minIdleMs`, and in between it reads new entries,
 * blocking up to `beatMs` when there are none.
 *
 * Each read is settled in one go: its acks coalesced into one `XACK`, sent with the next read
 * right behind it on the same socket, so a busy stream costs about two commands per `count`
 * entries. Delivery counts come from the reads and claims themselves (a new entry is on its first
 * delivery; a claim reads the count in the same script). Delivery is at least once: an entry whose
 * handler throws stays pending and comes back later, up to `maxDeliveries`, after which it goes to
 * the stream's dead-letter stream.
 *
 * @example
 * ```ts
 * const consumer = await stream.consume('indexer', async ({ id, payload }) => {
 *   await index.upsert(id, payload); // idempotent: `id` is the dedup key
 * }, { start: 'head', consumer: `indexer-${hostname()}`, concurrency: 8, maxDeliveries: 5 });
 * // …
 * await consumer.close();
 * ```
 */
export class GroupConsumer {
  /** The hashtag of the stream's keys: its queue, or its own name on a bus without a queue. */
  readonly queue: string;
  /** The stream name. */
  readonly stream: string;
  /** The group this consumer reads for. */
  readonly group: string;
  /** This consumer's name within the group. */
  readonly consumer: string;
  readonly #loop: ConsumerLoop;

  private constructor(ctx: StreamContext, group: string, consumer: string, loop: ConsumerLoop) {
    this.queue = ctx.queue;
    this.stream = ctx.name;
    this.group = group;
    this.consumer = consumer;
    this.#loop = loop;
  }

  static {
    startConsumer = async (ctx, group, handler, batch, options) => {
      if (typeof handler !== 'function') throw new InvalidArgumentError('handler', 'must be a function');
      assertMemberName(group, 'group');
      assertMemberName(options.consumer, 'consumer');
      const settings = settingsOf(options);
      await openGroup(ctx, group, options.start);
      const own = onConnection(ctx, await ctx.conn.duplicate(options.connectionName));
      const handling: Handling = batch ? { batch: handler as GroupBatchHandler } : { each: handler as GroupHandler };
      const loop = new ConsumerLoop(own, group, settings, handling);
      try {
        await loop.start();
      } catch (error) {
        await own.conn.close();
        throw error;
      }
      return new GroupConsumer(ctx, group, settings.consumer, loop);
    };
  }

  /** A snapshot of the counters. */
  stats(): GroupConsumerStats {
    return this.#loop.stats();
  }

  /**
   * False once {@link close} has been called, or once the loop gave up because its connection was
   * fenced out or failed authentication for good (that error went to `onError`).
   */
  get running(): boolean {
    return this.#loop.running;
  }

  /** True once {@link close} has been called. */
  get closed(): boolean {
    return this.#loop.closed;
  }

  /**
   * Stops the loop and closes the dedicated connection. Handlers that are running finish and their
   * entries are settled first; entries of the same read not yet started stay pending. A blocked
   * read is cut at once (any entry it was about to hand over stays pending, for this consumer's
   * next start or a peer's claim). Idempotent.
   */
  close(): Promise<void> {
    return this.#loop.close();
  }
}
