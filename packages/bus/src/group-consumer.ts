import { ConnectionLostError, InvalidArgumentError, execute, reads, transitions, type Connection, type EvtId, type StreamEntryReply, type TraceContext } from '@echo/protocol/bus';
import {
  settingsOf,
  type ConsumeOptions,
  type ConsumerSettings,
  type GroupBatchHandler,
  type GroupConsumerStats,
  type GroupHandler,
} from './consume-options.js';
import { entryFromPairs, type StreamFields } from './fields.js';
import { assertMemberName, openGroup } from './group.js';
import { isGroupPaused } from './group-controls.js';
import { HeldEntry, type EntryHolder } from './held-entry.js';
import { OrderedRounds, type Delivered, type Item } from './ordered-rounds.js';
import { streamKey } from './keys.js';
import { runHandling, type Handling, type RunScope } from './handler-runs.js';
import { sendSettlements, type Outcome, type SettleTarget, type Settlement } from './settle.js';
import { consumeClock, consumed } from './stream-hooks.js';
import { processTraced, traceWrap } from './stream-trace.js';
import { tracedEntryFromPairs } from './trace-fields.js';

const NO_SETTLEMENT: Promise<void> = Promise.resolve();

/** How long a read blocks while ordered entries wait for a peer: their turn is asked about between reads. */
const WAITING_BLOCK_MS = 50;

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
  readonly #handling: Handling;
  readonly #settings: ConsumerSettings;
  readonly #target: SettleTarget;
  /** The read of new entries, built once: the same arguments every beat. */
  readonly #readNewEntries: reads.Read<readonly StreamEntryReply[]>;
  /** The same read with a short block, while ordered entries wait for their turn. */
  readonly #readNewBriefly: reads.Read<readonly StreamEntryReply[]>;
  /** The per-key order of an ordered consumer. */
  readonly #order: OrderedRounds | undefined;
  #paused = false;
  #nextPauseCheck = 0;
  #claimCursor = '0-0';
  #nextClaimAt = 0;
  #stopping = false;
  #exited = false;
  // True while handlers run: close() must not cut the socket under their settlement.
  #busy = false;
  // The settlement sent with the read now in flight; close() waits for its replies before cutting.
  #settled: Promise<void> = NO_SETTLEMENT;
  #wake: (() => void) | undefined;
  #done: Promise<void> = Promise.resolve();
  #stats = { delivered: 0, acked: 0, failed: 0, claimed: 0, recovered: 0, deadLettered: 0 };
  readonly #scope: RunScope;

  private constructor(conn: Connection, queue: string, stream: string, group: string, handling: Handling, settings: ConsumerSettings) {
    this.#conn = conn;
    this.queue = queue;
    this.stream = stream;
    this.group = group;
    this.consumer = settings.consumer;
    this.#key = streamKey(queue, stream);
    this.#handling = handling;
    this.#settings = settings;
    this.#target = {
      queue,
      stream,
      key: this.#key,
      group,
      consumer: settings.consumer,
      minIdleMs: settings.minIdleMs,
      maxDeliveries: settings.maxDeliveries,
      backoff: settings.backoff,
      ordered: settings.orderBy !== undefined,
    };
    this.#scope = { concurrency: settings.concurrency, stats: this.#stats, onError: settings.onError, stopping: () => this.#stopping };
    this.#readNewEntries = reads.xreadgroup({ key: this.#key, group, consumer: settings.consumer, blockMs: settings.beatMs, count: settings.count });
    this.#readNewBriefly = reads.xreadgroup({ key: this.#key, group, consumer: settings.consumer, blockMs: Math.min(settings.beatMs, WAITING_BLOCK_MS), count: settings.count });
    this.#order =
      settings.orderBy === undefined
        ? undefined
        : new OrderedRounds(conn, { queue, stream, group, consumer: settings.consumer, orderBy: settings.orderBy }, (items) => this.#runRound(items), () => this.#stopping);
  }

  /**
   * Opens the group (an existing one is fine), opens a dedicated connection duplicated from `conn`,
   * and starts the loop with a per-entry handler. Options are checked first, so a bad value fails
   * here and sends nothing.
   *
   * @throws InvalidArgumentError for a bad option, name or handler.
   * @throws ServerError when the group cannot be opened (for example `WRONGTYPE`).
   */
  static start(conn: Connection, queue: string, stream: string, group: string, handler: GroupHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    if (typeof handler !== 'function') return Promise.reject(new InvalidArgumentError('handler', 'must be a function'));
    return GroupConsumer.#start(conn, queue, stream, group, { each: handler }, options);
  }

  /**
   * Like {@link start}, with a handler that takes each read's entries together and answers one
   * verdict per entry (or nothing, to ack them all). `concurrency` does not apply.
   *
   * @throws InvalidArgumentError for a bad option, name or handler.
   * @throws ServerError when the group cannot be opened.
   */
  static startBatch(conn: Connection, queue: string, stream: string, group: string, handler: GroupBatchHandler, options: ConsumeOptions): Promise<GroupConsumer> {
    if (typeof handler !== 'function') return Promise.reject(new InvalidArgumentError('handler', 'must be a function'));
    return GroupConsumer.#start(conn, queue, stream, group, { batch: handler }, options);
  }

  static async #start(conn: Connection, queue: string, stream: string, group: string, handling: Handling, options: ConsumeOptions): Promise<GroupConsumer> {
    streamKey(queue, stream);
    assertMemberName(group, 'group');
    assertMemberName(options.consumer, 'consumer');
    const settings = settingsOf(options);
    await openGroup(conn, queue, stream, group, options.start);
    const own = await conn.duplicate(options.connectionName);
    const consumer = new GroupConsumer(own, queue, stream, group, handling, settings);
    try {
      await consumer.#order?.start();
    } catch (error) {
      await own.close();
      throw error;
    }
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
   * Stops the loop and closes the dedicated connection. Handlers that are running finish and their
   * entries are settled first; entries of the same read not yet started stay pending. A blocked
   * read is cut at once (any entry it was about to hand over stays pending, for this consumer's
   * next start or a peer's claim). Idempotent.
   */
  async close(): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#wake?.();
      await this.#settled;
      if (!this.#busy) await this.#conn.close({ immediate: true });
    }
    await this.#done;
    await this.#conn.close();
  }

  async #run(): Promise<void> {
    let recover = true;
    while (!this.#stopping && this.#usable()) {
      const failure = await this.#guard(async () => {
        if (Date.now() >= this.#nextPauseCheck) {
          // One HEXISTS a beat: a pause reaches every consumer of the group within a beat or two.
          this.#paused = await isGroupPaused(this.#conn, this.queue, this.stream, this.group);
          this.#nextPauseCheck = Date.now() + this.#settings.beatMs;
        }
        if (this.#paused) {
          await this.#pause(this.#settings.beatMs);
          return;
        }
        if (recover) {
          await this.#walk('self');
          recover = false;
        }
        if (Date.now() >= this.#nextClaimAt) await this.#walk('idle');
        if (this.#order !== undefined && this.#order.waiting > 0) {
          await this.#order.recheck();
          await this.#settled;
          // A full backlog of waiting entries reads nothing more until some of them ran.
          if (this.#order.waiting >= this.#settings.count) {
            await this.#pause(WAITING_BLOCK_MS);
            return;
          }
        }
        await this.#readNew();
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
    await this.#settled;
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
    return this.#conn.status !== 'fatal' && this.#conn.status !== 'closed';
  }

  /**
   * Walks entries delivered before: this consumer's own pending ones (`self`, at start and after a
   * lost connection; the cursor moves past each batch, so an entry whose handler keeps failing is
   * left to the claim path instead of being re-read for ever), or anyone's idle ones (`idle`, once
   * a beat; the cursor is carried between beats so a deep backlog is walked once).
   */
  async #walk(mode: 'self' | 'idle'): Promise<void> {
    let cursor = mode === 'self' ? '0-0' : this.#claimCursor;
    do {
      if (this.#stopping) return;
      const reply = await execute(
        this.#conn,
        transitions.streamClaim({
          queue: this.queue,
          stream: this.stream,
          group: this.group,
          consumer: this.consumer,
          mode,
          cursor,
          count: this.#settings.count,
          minIdleMs: this.#settings.minIdleMs,
          maxDeliveries: this.#settings.maxDeliveries,
        }),
      );
      cursor = reply.cursor;
      this.#stats.deadLettered += reply.deadLettered;
      if (mode === 'self') this.#stats.recovered += reply.entries.length;
      else this.#stats.claimed += reply.entries.length;
      await this.#handle(reply.entries);
      await this.#settled;
      // An idle walk takes one batch a beat; a cursor left mid-way resumes on the next pass at once.
    } while (mode === 'self' && cursor !== '0-0');
    if (mode === 'idle') {
      this.#claimCursor = cursor;
      this.#nextClaimAt = cursor === '0-0' ? Date.now() + this.#settings.beatMs : 0;
    }
  }

  async #readNew(): Promise<void> {
    if (this.#stopping) return;
    const waiting = this.#order !== undefined && this.#order.waiting > 0;
    const raw = await reads.sendRead(this.#conn, waiting ? this.#readNewBriefly : this.#readNewEntries);
    // The settlement sent with this read has had its replies by now (they came first).
    await this.#settled;
    // A new entry is on its first delivery: `>` only hands over entries never delivered before.
    const delivered: Delivered[] = [];
    for (const e of raw) if (e.fields !== null) delivered.push({ xid: e.id, attempts: 1, pairs: e.fields });
    await this.#handle(delivered, raw.at(-1)?.id);
  }

  /**
   * Runs the handler over entries and sends their settlement without waiting for it; in an ordered
   * group, through the per-key order. `last` is the newest id of the read they come from.
   */
  async #handle(delivered: readonly Delivered[], last?: string): Promise<void> {
    if (delivered.length === 0 || this.#stopping) return;
    const items = delivered.map((d) => this.#read(d));
    if (this.#order === undefined) await this.#runRound(items);
    else await this.#order.admit(items, last);
  }

  /** Reads a delivered entry as a record, with its trace context and order key. */
  #read(d: Delivered): Item {
    let id: EvtId;
    let payload: StreamFields;
    let context: TraceContext | undefined;
    try {
      if (this.#settings.traceContext) {
        const read = tracedEntryFromPairs(d.xid, d.pairs);
        [id, payload] = read.entry;
        context = read.trace;
      } else [id, payload] = entryFromPairs(d.xid, d.pairs);
    } catch (error) {
      // Not a record this bus wrote. Left pending rather than dropped: at least once, even for
      // it; past maxDeliveries a claim moves it to the dead-letter stream.
      this.#stats.failed++;
      this.#settings.onError(error);
      return { d, entry: undefined, context: undefined, key: undefined };
    }
    const orderBy = this.#settings.orderBy;
    const key = orderBy === undefined ? undefined : payload[orderBy];
    const entry = new HeldEntry(id, payload, d.attempts, this.group, d.xid, this.#holder);
    return { d, entry, context, key };
  }

  /** Resets the idle time of an entry this consumer still holds; false when it holds it no more. */
  readonly #holder: EntryHolder = { touch: (xid) => this.#touch(xid) };

  async #touch(xid: string): Promise<boolean> {
    const held = await execute(this.#conn, transitions.streamTouch({ queue: this.queue, stream: this.stream, group: this.group, consumer: this.consumer, xids: [xid] }));
    return held > 0;
  }

  /** Runs the handler over items at once (up to `concurrency`) and sends their settlement. */
  async #runRound(items: readonly Item[]): Promise<(Outcome | undefined)[]> {
    const entries = items.map((item) => item.entry);
    // The producers' contexts, by slot, when the stream carries them in its records.
    const contexts = items.map((item) => item.context);
    const settlements: Settlement[] = [];
    this.#busy = true;
    const started = consumeClock();
    let outcomes: (Outcome | undefined)[];
    try {
      outcomes = await runHandling(this.#scope, this.#handling, entries, processTraced() ? traceWrap(this, entries, contexts) : undefined);
      consumed(this, entries, started);
      outcomes.forEach((outcome, i) => {
        const item = items[i] as Item;
        if (outcome !== undefined) settlements.push(item.key === undefined ? { xid: item.d.xid, attempts: item.d.attempts, outcome } : { xid: item.d.xid, attempts: item.d.attempts, outcome, key: item.key });
      });
    } finally {
      this.#busy = false;
    }
    if (settlements.length > 0) this.#settle(settlements);
    return outcomes;
  }

  /** Sends a settlement; its replies are awaited before the next one, or by close(). */
  #settle(settlements: readonly Settlement[]): void {
    this.#settled = sendSettlements(this.#conn, this.#target, settlements).then(
      (counts) => {
        this.#stats.acked += counts.acked;
        this.#stats.deadLettered += counts.deadLettered;
      },
      (error: unknown) => {
        // The entries stay pending: a peer's claim, or this consumer's recovery, hands them over again.
        if (!this.#stopping || !(error instanceof ConnectionLostError)) this.#settings.onError(error);
      },
    );
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
 * Starts a {@link GroupConsumer} with a per-entry handler: opens the group if needed, then consumes
 * on a dedicated connection until closed.
 */
export function consume(conn: Connection, queue: string, stream: string, group: string, handler: GroupHandler, options: ConsumeOptions): Promise<GroupConsumer> {
  return GroupConsumer.start(conn, queue, stream, group, handler, options);
}

/** Starts a {@link GroupConsumer} with a batch handler. See {@link GroupConsumer.startBatch}. */
export function consumeBatch(conn: Connection, queue: string, stream: string, group: string, handler: GroupBatchHandler, options: ConsumeOptions): Promise<GroupConsumer> {
  return GroupConsumer.startBatch(conn, queue, stream, group, handler, options);
}
