import { execute, GoneError, StateError, transitions as t, type BrandedId, type JobId } from '@echo/protocol';
import type { QueueContext } from '../context.js';

/** What one stalled sweep did. */
export type StalledSweep = t.StalledSweep;

/** Moves up to `limit` due scheduled jobs to their lane or to pending; answers how many (queue.md §8.2). */
export async function promote<T>(ctx: QueueContext<T>, limit = 100): Promise<number> {
  return execute(ctx.conn, t.promote({ queue: ctx.name, limit }));
}

/** Promotes as {@link promote} does and answers how long until the schedule's head falls due. */
export async function promoteNext<T>(ctx: QueueContext<T>, limit = 100): Promise<t.PromoteNext> {
  return execute(ctx.conn, t.promoteNext({ queue: ctx.name, limit }));
}

/**
 * Releases one scheduled job now, or moves its due time to `inMs` from server now.
 * @throws GoneError when the job does not exist; StateError("not scheduled") when it is not waiting on a time.
 */
export async function rescheduleJob<T>(ctx: QueueContext<T>, id: JobId | string, inMs?: number): Promise<void> {
  const answer = await execute(ctx.conn, t.rescheduleJob({ queue: ctx.name, id, ...(inMs === undefined ? {} : { inMs }) }));
  if (answer === 'gone') throw new GoneError();
  if (answer === 'not_scheduled') throw new StateError('not scheduled');
}

/** Recovers up to `limit` expired leases; answers how many (queue.md §6.1). */
export async function reap<T>(ctx: QueueContext<T>, limit = 100): Promise<number> {
  return execute(ctx.conn, t.reap({ queue: ctx.name, limit }));
}

/**
 * Counts each expired lease as a stall: below `maxStalled` the job is recovered, at it the job is
 * dead-lettered with `last_error` "stalled" (queue.md §6.2), running its flow failure arm as a
 * retry at the cap does.
 */
export async function sweepStalled<T>(ctx: QueueContext<T>, options: { maxStalled?: number; limit?: number } = {}): Promise<StalledSweep> {
  // The outbox is declared so a stalled child's death reaches a parent in another queue too.
  return execute(ctx.conn, t.sweepStalled({ queue: ctx.name, maxStalled: options.maxStalled ?? 1, limit: options.limit ?? 100, outbox: true }));
}

/** Recovers expired leases of one lane only (queue.md §5.6). */
export async function reapGroup<T>(ctx: QueueContext<T>, group: BrandedId | string, limit = 100): Promise<number> {
  return execute(ctx.conn, t.reapGroup({ queue: ctx.name, group, limit }));
}

/**
 * Brings a dead job back to pending (its lane when grouped), clearing `last_error` (queue.md §4.3).
 * @throws GoneError when the job does not exist; StateError("not dead") when it is not dead.
 */
export async function reprocess<T>(ctx: QueueContext<T>, id: JobId | string): Promise<void> {
  await execute(ctx.conn, t.reprocess({ queue: ctx.name, id }));
}
