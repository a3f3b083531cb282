import { assertBrandedId, InvalidArgumentError, scripts, type BrandedId } from '@echo/protocol';
import type { QueueContext } from './context.js';

function group(g: string): BrandedId {
  assertBrandedId(g);
  return g;
}

function atLeastOne(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(name, 'must be an integer >= 1');
  return n;
}

/** Caps a lane's in-flight jobs; lowering it parks the lane, raising it may return it (queue.md §5.3). */
export async function laneLimit<T>(ctx: QueueContext<T>, g: string, n: number): Promise<void> {
  const k = ctx.keys;
  await ctx.conn.run(scripts().glimit, [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.lane(group(g))], [g, atLeastOne('limit', n)]);
}

/** Takes a lane out of rotation; its backlog and in-flight work are untouched (queue.md §5.4). */
export async function lanePause<T>(ctx: QueueContext<T>, g: string): Promise<void> {
  await ctx.conn.run(scripts().gpause, [ctx.keys.paused, ctx.keys.ring], [group(g)]);
}

/** Returns a paused lane to rotation, waking a consumer if it has work. */
export async function laneResume<T>(ctx: QueueContext<T>, g: string): Promise<void> {
  const k = ctx.keys;
  await ctx.conn.run(scripts().gresume, [k.paused, k.ring, k.glimit, k.gactive, k.wake, k.lane(group(g))], [g]);
}

/** Sets how many jobs a weighted claim serves from this lane per rotation (queue.md §5.5). */
export async function laneWeight<T>(ctx: QueueContext<T>, g: string, weight: number): Promise<void> {
  await ctx.conn.run(scripts().gweight, [ctx.keys.gweight], [group(g), atLeastOne('weight', weight)]);
}

/** The verdict of moving a pending job to another lane. */
export type ReassignResult = 'reassigned' | 'noop' | 'not_found' | 'not_pending';

/** Moves a pending job to lane `dst`; the source lane comes from the row, never the caller (queue.md §5.6). */
export async function laneReassign<T>(ctx: QueueContext<T>, id: string, dst: string): Promise<ReassignResult> {
  assertBrandedId(id);
  const k = ctx.keys;
  const reply = await ctx.conn.run(
    scripts().greassign,
    [k.job(id), k.lane(group(dst)), k.ring, k.paused, k.glimit, k.gactive, k.wake, k.laneRoot],
    [id, dst],
  );
  switch (reply) {
    case 1:
      return 'reassigned';
    case 0:
      return 'noop';
    case -2:
      return 'not_pending';
    default:
      return 'not_found';
  }
}

/** Deletes a lane's waiting jobs with their rows and sub-keys; answers how many (queue.md §5.6). */
export async function laneDrain<T>(ctx: QueueContext<T>, g: string): Promise<number> {
  const k = ctx.keys;
  return (await ctx.conn.run(scripts().gdrain, [k.lane(group(g)), k.ring, k.jobRoot], [g])) as number;
}
