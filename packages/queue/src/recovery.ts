import { assertBrandedId, GoneError, InvalidArgumentError, scripts, type BrandedId, type JobId } from '@echo/protocol';
import { laneBookkeeping, type QueueContext } from './context.js';

function limitOf(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidArgumentError('limit', 'must be a positive integer');
  return limit;
}

/** Moves up to `limit` due scheduled jobs to their lane or to pending; answers how many (queue.md §8.2). */
export async function promote<T>(ctx: QueueContext<T>, limit = 100): Promise<number> {
  const k = ctx.keys;
  return (await ctx.conn.run(scripts().promote, [k.schedule, k.pending, ...laneBookkeeping(k), k.jobRoot, k.laneRoot], [limitOf(limit)])) as number;
}

/** Recovers up to `limit` expired leases; answers how many (queue.md §6.1). */
export async function reap<T>(ctx: QueueContext<T>, limit = 100): Promise<number> {
  const k = ctx.keys;
  return (await ctx.conn.run(scripts().reap, [k.active, k.pending, ...laneBookkeeping(k), k.jobRoot, k.laneRoot], [limitOf(limit)])) as number;
}

/** What one stalled sweep did. */
export interface StalledSweep {
  readonly recovered: JobId[];
  readonly dead: JobId[];
}

/**
 * Counts each expired lease as a stall: below `maxStalled` the job is recovered, at it the job is
 * dead-lettered with `last_error` "stalled" (queue.md §6.2).
 */
export async function sweepStalled<T>(ctx: QueueContext<T>, options: { maxStalled?: number; limit?: number } = {}): Promise<StalledSweep> {
  const k = ctx.keys;
  const maxStalled = limitOf(options.maxStalled ?? 1);
  const reply = (await ctx.conn.run(
    scripts().sweep_stalled,
    [k.active, k.pending, k.dead, k.metricsFailed, ...laneBookkeeping(k), k.jobRoot, k.laneRoot],
    [maxStalled, limitOf(options.limit ?? 100)],
  )) as [JobId[], JobId[]];
  return { recovered: reply[0], dead: reply[1] };
}

/** Recovers expired leases of one lane only (queue.md §5.6). */
export async function reapGroup<T>(ctx: QueueContext<T>, group: BrandedId | string, limit = 100): Promise<number> {
  assertBrandedId(group);
  const k = ctx.keys;
  return (await ctx.conn.run(scripts().greap_group, [k.active, k.lane(group), ...laneBookkeeping(k), k.jobRoot], [group, limitOf(limit)])) as number;
}

/**
 * Brings a dead job back to pending (its lane when grouped), clearing `last_error` (queue.md §4.3).
 * @throws GoneError when the job does not exist; StateError("not dead") when it is not dead.
 */
export async function reprocess<T>(ctx: QueueContext<T>, id: JobId | string): Promise<void> {
  assertBrandedId(id);
  const k = ctx.keys;
  const reply = await ctx.conn.run(scripts().reprocess, [k.job(id), k.dead, k.pending, ...laneBookkeeping(k), k.laneRoot], [id]);
  if (reply === -1) throw new GoneError();
}
