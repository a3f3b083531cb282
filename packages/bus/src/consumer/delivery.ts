import { execute, reads, transitions, type StreamEntryReply, type TraceContext } from '@echo/protocol/bus';
import type { StreamContext } from '../core/context.js';
import { consumeClock, consumed, type ConsumerLabels } from '../telemetry/hooks.js';
import { processTraced } from '../telemetry/trace.js';
import { traceWrap } from './process-trace.js';
import type { EntryHolder, HeldEntry } from './held-entry.js';
import type { ConsumerSettings } from './options.js';
import { OrderedRounds, type Delivered, type Item } from './ordered.js';
import { entryHolder, heldEntryOf, itemOf } from './records.js';
import { runHandling, type Handling, type RunScope } from './runs.js';
import type { Outcome, Settlement } from './settle.js';
import { Settler } from './settler.js';

/** The contexts of a read from a stream whose records carry none: every slot reads undefined. */
const NO_CONTEXTS: readonly (TraceContext | undefined)[] = [];

/** How long a read blocks while ordered entries wait for a peer: their turn is asked about between reads. */
export const WAITING_BLOCK_MS = 50;

/** The counters of one consumer, moved as entries pass. */
export interface ConsumerCounters {
  delivered: number;
  acked: number;
  failed: number;
  claimed: number;
  recovered: number;
  deadLettered: number;
}

/**
 * The way entries take through one group consumer: from the server (a read of new entries, or a
 * walk of those delivered before), through the handler (in an ordered group, through the per-key
 * order), and back as one settlement per read, sent without waiting so the next read rides right
 * behind it on the same socket.
 */
export class Delivery {
  readonly stats: ConsumerCounters = { delivered: 0, acked: 0, failed: 0, claimed: 0, recovered: 0, deadLettered: 0 };
  /** The per-key order of an ordered consumer. */
  readonly order: OrderedRounds | undefined;
  readonly #ctx: StreamContext;
  readonly #group: string;
  readonly #settings: ConsumerSettings;
  readonly #handling: Handling;
  readonly #stopping: () => boolean;
  readonly #labels: ConsumerLabels;
  readonly #settler: Settler;
  readonly #scope: RunScope;
  readonly #holder: EntryHolder;
  /** The read of new entries, built once: the same arguments every beat. */
  readonly #readNewEntries: reads.Read<readonly StreamEntryReply[]>;
  /** The same read with a short block, while ordered entries wait for their turn. */
  readonly #readNewBriefly: reads.Read<readonly StreamEntryReply[]>;
  #claimCursor = '0-0';
  #nextClaimAt = 0;
  // True while handlers run: close() must not cut the socket under their settlement.
  #busy = false;

  /** @param stopping true once the consumer began to close: no new handler call starts. */
  constructor(ctx: StreamContext, group: string, settings: ConsumerSettings, handling: Handling, stopping: () => boolean) {
    this.#ctx = ctx;
    this.#group = group;
    this.#settings = settings;
    this.#handling = handling;
    this.#stopping = stopping;
    const consumer = settings.consumer;
    this.#labels = { queue: ctx.queue, stream: ctx.name, group, consumer };
    this.#settler = new Settler(ctx, this.#labels, settings, this.stats, stopping);
    this.#holder = entryHolder(ctx, group, consumer);
    this.#scope = { concurrency: settings.concurrency, stats: this.stats, onError: settings.onError, stopping };
    this.#readNewEntries = reads.xreadgroup({ key: ctx.key, group, consumer, blockMs: settings.beatMs, count: settings.count });
    this.#readNewBriefly = reads.xreadgroup({ key: ctx.key, group, consumer, blockMs: Math.min(settings.beatMs, WAITING_BLOCK_MS), count: settings.count });
    this.order =
      settings.orderBy === undefined ? undefined : new OrderedRounds(ctx, { group, consumer, orderBy: settings.orderBy }, (items) => this.#runRound(items), stopping);
  }

  /** True while handlers run. */
  get busy(): boolean {
    return this.#busy;
  }

  /** The replies of the settlement last sent (it never rejects: a failure goes to `onError`). */
  get settled(): Promise<void> {
    return this.#settler.settled;
  }

  /** True when the idle walk is due: once a beat, or at once while a walk is left mid-way. */
  claimDue(now: number): boolean {
    return now >= this.#nextClaimAt;
  }

  /**
   * Walks entries delivered before: this consumer's own pending ones (`self`, at start and after a
   * lost connection; the cursor moves past each batch, so an entry whose handler keeps failing is
   * left to the claim path instead of being re-read for ever), or anyone's idle ones (`idle`, once
   * a beat; the cursor is carried between beats so a deep backlog is walked once). The claim
   * script dead-letters an entry past `maxDeliveries` instead of handing it over.
   */
  async walk(mode: 'self' | 'idle'): Promise<void> {
    let cursor = mode === 'self' ? '0-0' : this.#claimCursor;
    do {
      if (this.#stopping()) return;
      const reply = await execute(
        this.#ctx.conn,
        transitions.streamClaim({
          queue: this.#ctx.queue,
          stream: this.#ctx.name,
          group: this.#group,
          consumer: this.#settings.consumer,
          mode,
          cursor,
          count: this.#settings.count,
          minIdleMs: this.#settings.minIdleMs,
          maxDeliveries: this.#settings.maxDeliveries,
        }),
      );
      cursor = reply.cursor;
      this.stats.deadLettered += reply.deadLettered;
      if (mode === 'self') this.stats.recovered += reply.entries.length;
      else this.stats.claimed += reply.entries.length;
      await this.#handle(reply.entries);
      await this.#settler.settled;
      // An idle walk takes one batch a beat; a cursor left mid-way resumes on the next pass at once.
    } while (mode === 'self' && cursor !== '0-0');
    if (mode === 'idle') {
      this.#claimCursor = cursor;
      this.#nextClaimAt = cursor === '0-0' ? Date.now() + this.#settings.beatMs : 0;
    }
  }

  /** Reads new entries (blocking up to a beat, or briefly while ordered entries wait) and handles them. */
  async readNew(): Promise<void> {
    if (this.#stopping()) return;
    const waiting = this.order !== undefined && this.order.waiting > 0;
    const raw = await reads.sendRead(this.#ctx.conn, waiting ? this.#readNewBriefly : this.#readNewEntries);
    // The settlement sent with this read has had its replies by now (they came first).
    await this.#settler.settled;
    if (this.order === undefined && !this.#settings.traceContext) return this.#runNew(raw);
    // A new entry is on its first delivery: `>` only hands over entries never delivered before.
    const delivered: Delivered[] = [];
    for (const e of raw) if (e.fields !== null) delivered.push({ xid: e.id, attempts: 1, pairs: e.fields });
    await this.#handle(delivered, raw.at(-1)?.id);
  }

  /**
   * The hot path, a group without order over records without trace context: each new entry is read
   * straight into the entry its handler gets, and a read whose entries were all acked settles with
   * one XACK of the ids the read answered. Nothing else is built per entry.
   */
  async #runNew(raw: readonly StreamEntryReply[]): Promise<void> {
    if (raw.length === 0 || this.#stopping()) return;
    const entries = new Array<HeldEntry | undefined>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const e = raw[i] as StreamEntryReply;
      // A deleted entry comes back without fields: nothing to hand over (as on the general path).
      entries[i] = e.fields === null ? undefined : this.#held(e.id, 1, e.fields);
    }
    this.#busy = true;
    const started = consumeClock();
    let outcomes: (Outcome | undefined)[];
    try {
      outcomes = await runHandling(this.#scope, this.#handling, entries, processTraced() ? traceWrap(this.#labels, entries, NO_CONTEXTS) : undefined);
      consumed(this.#labels, entries, started);
    } finally {
      this.#busy = false;
    }
    const acked: string[] = [];
    let plain = true;
    for (let i = 0; i < outcomes.length && plain; i++) {
      const outcome = outcomes[i];
      if (outcome === undefined) continue;
      if (outcome.kind === 'ack') acked.push((raw[i] as StreamEntryReply).id);
      else plain = false;
    }
    if (plain) {
      if (acked.length > 0) this.#settler.acks(acked);
      return;
    }
    // Some entry retries or fails: the settle script, with a settlement per entry (the rare path).
    const settlements: Settlement[] = [];
    outcomes.forEach((outcome, i) => {
      if (outcome !== undefined) settlements.push({ xid: (raw[i] as StreamEntryReply).id, attempts: 1, outcome });
    });
    this.#settler.send(settlements);
  }

  /** The entry a handler gets; undefined (counted and reported) when it is no record. */
  #held(xid: string, attempts: number, pairs: readonly unknown[]): HeldEntry | undefined {
    try {
      return heldEntryOf(xid, attempts, pairs, this.#group, this.#holder);
    } catch (error) {
      this.#notRecord(error);
      return undefined;
    }
  }

  /** A delivered entry as an item; without an entry (counted and reported) when it is no record. */
  #item(d: Delivered): Item {
    try {
      return itemOf(d, this.#settings, this.#group, this.#holder);
    } catch (error) {
      this.#notRecord(error);
      return { d, entry: undefined, context: undefined, key: undefined };
    }
  }

  /** An entry this bus did not write: left pending rather than dropped (see records.ts). */
  #notRecord(error: unknown): void {
    this.stats.failed++;
    this.#settings.onError(error);
  }

  /**
   * Runs the handler over entries and sends their settlement without waiting for it; in an ordered
   * group, through the per-key order. `last` is the newest id of the read they come from.
   */
  async #handle(delivered: readonly Delivered[], last?: string): Promise<void> {
    if (delivered.length === 0 || this.#stopping()) return;
    const items = delivered.map((d) => this.#item(d));
    if (this.order === undefined) await this.#runRound(items);
    else await this.order.admit(items, last);
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
      outcomes = await runHandling(this.#scope, this.#handling, entries, processTraced() ? traceWrap(this.#labels, entries, contexts) : undefined);
      consumed(this.#labels, entries, started);
      outcomes.forEach((outcome, i) => {
        const item = items[i] as Item;
        if (outcome !== undefined) settlements.push(item.key === undefined ? { xid: item.d.xid, attempts: item.d.attempts, outcome } : { xid: item.d.xid, attempts: item.d.attempts, outcome, key: item.key });
      });
    } finally {
      this.#busy = false;
    }
    if (settlements.length > 0) this.#settler.send(settlements);
    return outcomes;
  }
}
