import { execute, reads, transitions as t, type BrandedId, type JobId, type QueueKeys } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { deliverOutbox, deliverOutboxClimbing, type OutboxSweep } from '../flows/flows.js';
import { fireDueSchedulers } from '../producer/schedulers.js';
import { laneGroupId } from '../core/lane-names.js';

/** What one stalled sweep did. */
export type StalledSweep = t.StalledSweep;

/** What {@link Maintenance.promoteNext} did: jobs moved, and ms until the schedule's head falls due (-1: none). */
export type PromoteNext = t.PromoteNext;

let build: (ctx: QueueContext<unknown>) => Maintenance;

/** The maintenance handle on a queue's context: how `Queue` builds the one `queue.maintenance()` answers. */
export function maintenanceOf(ctx: QueueContext<unknown>): Maintenance {
  return build(ctx);
}

/**
 * The upkeep of one queue (queue.md §6, §8.2, §10.2, §11.5): promoting due jobs, recovering expired
 * leases, firing due repeats, delivering the flow outbox, and the worker registry. A worker's pump
 * runs it, so nothing else has to; every step is idempotent over its set, so any number of
 * processes may run it on one queue. The low-level form: get it with `queue.maintenance()`.
 */
export class Maintenance {
  /** The queue's name. */
  readonly queue: string;
  /** The queue's keys. */
  readonly keys: QueueKeys;
  readonly #ctx: QueueContext<unknown>;

  static {
    build = (ctx) => new Maintenance(ctx);
  }

  // Private, so the context it holds stays out of the public types: `Queue` builds it through maintenanceOf.
  private constructor(ctx: QueueContext<unknown>) {
    this.#ctx = ctx;
    this.queue = ctx.name;
    this.keys = ctx.keys;
  }

  /** Moves up to `limit` due scheduled jobs to their lane or to pending; answers how many (queue.md §8.2). */
  promote(limit = 100): Promise<number> {
    return execute(this.#ctx.conn, t.promote({ queue: this.queue, limit }));
  }

  /** Promotes as {@link promote} does and answers how long until the schedule's head falls due [TS]. */
  promoteNext(limit = 100): Promise<PromoteNext> {
    return execute(this.#ctx.conn, t.promoteNext({ queue: this.queue, limit }));
  }

  /** Recovers up to `limit` expired leases; answers how many (queue.md §6.1). */
  reap(limit = 100): Promise<number> {
    return execute(this.#ctx.conn, t.reap({ queue: this.queue, limit }));
  }

  /**
   * [TS] The ids of up to `limit` leases that end by `cutoff` (server epoch ms), soonest first: the
   * jobs the next reap or stalled sweep would find. A worker reads their rows before its stalled
   * sweep, so it can report a death by stalling even when the queue keeps no dead row.
   */
  lapsingBy(cutoff: number, limit = 100): Promise<JobId[]> {
    return reads.sendRead(this.#ctx.conn, reads.queue.scoredUpTo({ keys: this.keys, set: 'active', cutoff, limit }));
  }

  /** Recovers expired leases of one lane only (queue.md §5.6), named as the producer named it. */
  reapGroup(lane: BrandedId | string, limit = 100): Promise<number> {
    return execute(this.#ctx.conn, t.reapGroup({ queue: this.queue, group: laneGroupId(lane), limit }));
  }

  /**
   * Counts each expired lease as a stall: below `maxStalled` the job is recovered, at it the job is
   * dead-lettered with `last_error` "stalled" (queue.md §6.2), running its flow failure arm as a
   * retry at the cap does.
   */
  sweepStalled(options: { readonly maxStalled?: number; readonly limit?: number } = {}): Promise<StalledSweep> {
    // The outbox is declared so a stalled child's death reaches a parent in another queue too.
    return execute(this.#ctx.conn, t.sweepStalled({ queue: this.queue, maxStalled: options.maxStalled ?? 1, limit: options.limit ?? 100, outbox: true }));
  }

  /** Fires every due repeat and job scheduler once; answers how many fired. */
  fireDueRepeats(batch?: number, onError?: (name: string, error: unknown) => void): Promise<number> {
    return fireDueSchedulers(this.#ctx, batch, onError);
  }

  /** Delivers this queue's cross-queue flow signals to their parents (a failure climbs one level). */
  deliverOutbox(batch?: number): Promise<OutboxSweep> {
    return deliverOutbox(this.#ctx, batch);
  }

  /**
   * [TS] {@link deliverOutbox}, then the outboxes of the queues whose flow nodes died of it, level
   * by level, so a failure climbs a cross-queue tree in one call (a worker's tick uses this).
   */
  deliverOutboxClimbing(batch?: number): Promise<OutboxSweep> {
    return deliverOutboxClimbing(this.#ctx, batch);
  }

  /** Writes (or refreshes) a worker's registry entry for `ttlMs`; `info` is its JSON description. */
  async beat(id: string, ttlMs: number, info: string): Promise<void> {
    await execute(this.#ctx.conn, t.workerBeat({ queue: this.queue, id, ttlMs, info }));
  }

  /** Removes a worker's registry entry. */
  async leave(id: string): Promise<void> {
    await execute(this.#ctx.conn, t.workerLeave({ queue: this.queue, id }));
  }

  /** One cheap read on the queue's own slot: resolves once a call gets through (an outage's end). */
  async probe(): Promise<void> {
    await reads.sendRead(this.#ctx.conn, reads.queue.probe({ keys: this.keys }));
  }
}
