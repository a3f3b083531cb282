import { ConnectionLostError, InvalidArgumentError, type Connection, type EvtId } from '@echo/protocol';
import { entryFromPairs, type StreamFields } from './fields.js';
import { assertMemberName, openGroup, type GroupStart } from './group.js';
import { streamKey } from './keys.js';
import { autoclaimReply, deliveryCount, readGroupEntries, type RawEntry } from './replies.js';

/** What a group handler receives: the same shape as the job consumer's handler (bus.md §7.2). */
export interface GroupEntry {
  /** The record's EVT id, the dedup key: delivery is at least once and may be out of order. */
  readonly id: EvtId;
  /** The record's fields, without `id`. */
  readonly payload: StreamFields;
  /** How many times the entry has been delivered, this delivery included; not a failure count. */
  readonly attempts: number;
  /** The group the entry was delivered to. */
  readonly group: string;
}

/**
 * Handles one entry. Returning (or resolving) acks it; throwing (or rejecting) leaves it pending, to
 * be delivered again once it has been idle for `minIdleMs`. Must be idempotent (bus.md §7.3).
 */
export type GroupHandler = (entry: GroupEntry) => void | Promise<void>;

/** How a {@link GroupConsumer} runs. */
export interface ConsumeOptions {
  /** Where the group starts if it does not exist yet; required, there is no default (bus.md §7.1). */
  readonly start: GroupStart;
  /**
   * This consumer's name within the group. Keep it stable across restarts: a consumer that comes
   * back under the same name gets its own backlog at once, instead of after `minIdleMs`.
   */
  readonly consumer: string;
  /** How long an entry must sit unacked before any consumer may claim it. Default 30000 ms. */
  readonly minIdleMs?: number;
  /** How long one blocking read waits for new entries; also the claim period. Default 1000 ms. */
  readonly beatMs?: number;
  /** Entries per read or claim. Default 100. */
  readonly count?: number;
  /** `CLIENT SETNAME` for the dedicated connection, so it can be found in `CLIENT LIST`. */
  readonly connectionName?: string;
  /**
   * Called with every error the loop survives: a handler's throw (with its entry), an entry that
   * carries no EVT id, a lost connection. The loop keeps going. Default: ignore.
   */
  readonly onError?: (error: unknown, entry?: GroupEntry) => void;
}

/** Counters since start. */
export interface GroupConsumerStats {
  /** Handler calls. */
  readonly delivered: number;
  /** Entries acked after their handler returned. */
  readonly acked: number;
  /** Handler throws, plus entries that could not be read as records; all left pending. */
  readonly failed: number;
  /** Entries taken over by `XAUTOCLAIM` (from peers, or this consumer's own idle failures). */
  readonly claimed: number;
  /** This consumer's own pending entries found at start, or again after a lost connection. */
  readonly recovered: number;
}

function positive(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

/**
 * One consumer of a stream's consumer group (bus.md §7.2), on a connection of its own because its
 * reads block. At start it works through its own pending entries; then on every beat it claims
 * entries that peers (or it) left idle for `minIdleMs`, and blocks up to `beatMs` for new ones.
 * Delivery is at least once: an entry whose handler throws stays pending and comes back later.
 *
 * @example
 * ```ts
 * const consumer = await GroupConsumer.start(conn, 'orders', 'audit', 'indexer', async ({ id, payload }) => {
 *   await index.upsert(id, payload); // idempotent: `id` is the dedup key
 * }, { start: 'head', consumer: `indexer-${hostname()}` });
 * // …
 * await consumer.close();
 * ```
 */
export class GroupConsumer {
  /** The queue namespace. */
  readonly queue: string;
  /** The stream name. */
  readonly stream: string;
  /** The group this consumer reads for. */
  readonly group: string;
  /** This consumer's name within the group. */
  readonly consumer: string;
  readonly #conn: Connection;
  readonly #key: string;
  readonly #handler: GroupHandler;
  readonly #minIdle: string;
  readonly #beat: string;
  readonly #count: string;
  readonly #beatMs: number;
  readonly #onError: (error: unknown, entry?: GroupEntry) => void;
  #cursor = '0-0';
  #stopping = false;
  #exited = false;
  // True from an entry's XPENDING through its XACK: close() must not cut the socket under it.
  #settling = false;
  #wake: (() => void) | undefined;
  #done: Promise<void> = Promise.resolve();
  #stats = { delivered: 0, acked: 0, failed: 0, claimed: 0, recovered: 0 };

  private constructor(conn: Connection, queue: string, stream: string, group: string, handler: GroupHandler, options: ConsumeOptions) {
    this.#conn = conn;
    this.queue = queue;
    this.stream = stream;
    this.group = group;
    this.consumer = options.consumer;
    this.#key = streamKey(queue, stream);
    this.#handler = handler;
    this.#minIdle = String(options.minIdleMs ?? 30_000);
    this.#beatMs = options.beatMs ?? 1000;
    this.#beat = String(this.#beatMs);
    this.#count = String(options.count ?? 100);
    this.#onError = options.onError ?? (() => undefined);
  }

  /**
   * Opens the group (an existing one is fine), opens a dedicated connection duplicated from `conn`,
   * and starts the loop. Options are checked first, so a bad value fails here and sends nothing.
   *
   * @throws InvalidArgumentError for a bad option, name or handler.
   * @throws ServerError when the group cannot be opened (for example `WRONGTYPE`).
   */
  static async start(conn: Connection, queue: string, stream: string, group: string, handler: GroupHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    streamKey(queue, stream);
    assertMemberName(group, 'group');
    assertMemberName(options.consumer, 'consumer');
    if (typeof handler !== 'function') throw new InvalidArgumentError('handler', 'must be a function');
    positive('minIdleMs', options.minIdleMs ?? 30_000, 0);
    positive('beatMs', options.beatMs ?? 1000, 1);
    positive('count', options.count ?? 100, 1);
    await openGroup(conn, queue, stream, group, options.start);
    const own = await conn.duplicate(options.connectionName);
    const consumer = new GroupConsumer(own, queue, stream, group, handler, options);
    consumer.#done = consumer.#run();
    return consumer;
  }

  /** A snapshot of the counters. */
  stats(): GroupConsumerStats {
    return { ...this.#stats };
  }

  /**
   * False once {@link close} has been called, or once the loop gave up because its connection was
   * fenced out or failed authentication for good (that error went to `onError`).
   */
  get running(): boolean {
    return !this.#stopping && !this.#exited;
  }

  /**
   * Stops the loop and closes the dedicated connection. A handler that is running finishes and its
   * entry is acked first; a blocked read is cut at once (any entry it was about to hand over stays
   * pending, for this consumer's next start or a peer's claim). Idempotent.
   */
  async close(): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#wake?.();
      if (!this.#settling) await this.#conn.close({ immediate: true });
    }
    await this.#done;
    await this.#conn.close();
  }

  async #run(): Promise<void> {
    let recover = true;
    while (!this.#stopping && this.#usable()) {
      const failure = await this.#guard(async () => {
        if (recover) {
          await this.#recoverSelf();
          recover = false;
        }
        await this.#claimIdle();
        await this.#readNew();
      });
      if (failure instanceof ConnectionLostError) {
        // A read whose reply was lost with the socket may still have put entries on this
        // consumer's pending list; recovering self again hands them over now, not after minIdle.
        // No back-off either: the next command waits at the connector's gate for the reconnect.
        recover = true;
      } else if (failure !== undefined && this.running) {
        // Anything else (a deleted group, a key of the wrong type) would fail again at once.
        await this.#pause(this.#beatMs);
      }
    }
    this.#exited = true;
  }

  /** Runs one step; a failure the loop can survive is reported and returned. */
  async #guard(step: () => Promise<void>): Promise<unknown> {
    try {
      await step();
      return undefined;
    } catch (error) {
      if (!this.#stopping) this.#onError(error);
      return error ?? new Error('undefined thrown');
    }
  }

  /** A fenced-out or closed connection will not come back; the loop stops instead of spinning. */
  #usable(): boolean {
    return this.#conn.status !== 'fatal' && this.#conn.status !== 'closed';
  }

  /**
   * Works through this consumer's own pending entries: at start, and again after a lost
   * connection. The cursor moves past each batch, so an entry whose handler keeps failing is left
   * for the claim path instead of being re-read for ever.
   */
  async #recoverSelf(): Promise<void> {
    let cursor = '0';
    while (!this.#stopping) {
      const entries = readGroupEntries(
        await this.#conn.command('XREADGROUP', 'GROUP', this.group, this.consumer, 'COUNT', this.#count, 'STREAMS', this.#key, cursor),
      );
      const last = entries.at(-1);
      if (last === undefined) return;
      this.#stats.recovered += entries.length;
      await this.#settleAll(entries);
      cursor = last.xid;
    }
  }

  /**
   * Claims entries idle for at least `minIdleMs`, whoever holds them; the server measures idleness,
   * so no host clock is involved. The cursor is carried between beats so a deep backlog is walked
   * once rather than re-scanned from the start each time.
   */
  async #claimIdle(): Promise<void> {
    if (this.#stopping) return;
    const reply = autoclaimReply(
      await this.#conn.command('XAUTOCLAIM', this.#key, this.group, this.consumer, this.#minIdle, this.#cursor, 'COUNT', this.#count),
    );
    this.#cursor = reply.cursor;
    this.#stats.claimed += reply.entries.length;
    await this.#settleAll(reply.entries);
  }

  async #readNew(): Promise<void> {
    if (this.#stopping) return;
    const reply = await this.#conn.command(
      'XREADGROUP', 'GROUP', this.group, this.consumer, 'BLOCK', this.#beat, 'COUNT', this.#count, 'STREAMS', this.#key, '>',
    );
    await this.#settleAll(readGroupEntries(reply));
  }

  async #settleAll(entries: readonly RawEntry[]): Promise<void> {
    for (const entry of entries) {
      // A stop is honoured between entries, never inside one; the rest stay pending.
      if (this.#stopping) return;
      this.#settling = true;
      try {
        await this.#settle(entry);
      } finally {
        this.#settling = false;
      }
    }
  }

  async #settle(raw: RawEntry): Promise<void> {
    if (raw.pairs === null) {
      // Trimmed away while pending: nothing is left to deliver, so only the bookkeeping goes.
      await this.#conn.command('XACK', this.#key, this.group, raw.xid);
      return;
    }
    let id: EvtId;
    let payload: StreamFields;
    try {
      [id, payload] = entryFromPairs(raw.xid, raw.pairs);
    } catch (error) {
      // Not a record this bus wrote. Left pending rather than dropped: at least once, even for it.
      this.#stats.failed++;
      this.#onError(error);
      return;
    }
    const attempts = deliveryCount(await this.#conn.command('XPENDING', this.#key, this.group, raw.xid, raw.xid, '1'));
    const entry: GroupEntry = { id, payload, attempts, group: this.group };
    this.#stats.delivered++;
    try {
      await this.#handler(entry);
    } catch (error) {
      this.#stats.failed++;
      this.#onError(error, entry);
      return;
    }
    await this.#conn.command('XACK', this.#key, this.group, raw.xid);
    this.#stats.acked++;
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

/**
 * Starts a {@link GroupConsumer}: opens the group if needed, then consumes on a dedicated
 * connection until closed.
 */
export function consume(conn: Connection, queue: string, stream: string, group: string, handler: GroupHandler, options: ConsumeOptions): Promise<GroupConsumer> {
  return GroupConsumer.start(conn, queue, stream, group, handler, options);
}
