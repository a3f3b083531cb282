import { execute, isBrandedId, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkLaneRateLimit } from '../core/option-checks.js';
import { laneGroupId } from '../core/lane-names.js';

/** The verdict of moving a pending job to another lane. */
export type ReassignResult = t.ReassignResult;

/** A lane's own rate limit: at most `max` of its jobs claimed per window of `durationMs`. */
export type LaneRateLimit = t.LaneRateLimit;

/** Caps a lane's in-flight jobs; lowering it parks the lane, raising it may return it (queue.md §5.3). */
export async function laneLimit<T>(ctx: QueueContext<T>, g: string, n: number): Promise<void> {
  await execute(ctx.conn, t.laneLimit({ queue: ctx.name, group: laneGroupId(g), limit: n }));
}

/** Sets or lifts a lane's own rate limit [TS], enforced by the lane claims. */
export async function laneRateLimit<T>(ctx: QueueContext<T>, g: string, limit: LaneRateLimit | null): Promise<void> {
  checkLaneRateLimit(limit);
  await execute(ctx.conn, t.laneRateLimit({ queue: ctx.name, group: laneGroupId(g), limit }));
}

/** Takes a lane out of rotation; its backlog and in-flight work are untouched (queue.md §5.4). */
export async function lanePause<T>(ctx: QueueContext<T>, g: string): Promise<void> {
  await execute(ctx.conn, t.lanePause({ queue: ctx.name, group: laneGroupId(g) }));
}

/** Returns a paused lane to rotation, waking a consumer if it has work. */
export async function laneResume<T>(ctx: QueueContext<T>, g: string): Promise<void> {
  await execute(ctx.conn, t.laneResume({ queue: ctx.name, group: laneGroupId(g) }));
}

/** Sets how many jobs a weighted claim serves from this lane per rotation (queue.md §5.5). */
export async function laneWeight<T>(ctx: QueueContext<T>, g: string, weight: number): Promise<void> {
  await execute(ctx.conn, t.laneWeight({ queue: ctx.name, group: laneGroupId(g), weight }));
}

/** Moves a pending job to lane `dst`; the source lane comes from the row, never the caller (queue.md §5.6). */
export async function laneReassign<T>(ctx: QueueContext<T>, id: string, dst: string): Promise<ReassignResult> {
  // A lane given by name keeps its name in the row [TS], as enqueueInLane does.
  const named = !isBrandedId(dst);
  return execute(ctx.conn, t.laneReassign({ queue: ctx.name, id, to: laneGroupId(dst), ...(named ? { toName: dst } : {}) }));
}

/** Deletes a lane's waiting jobs with their rows and sub-keys; answers how many (queue.md §5.6). */
export async function laneDrain<T>(ctx: QueueContext<T>, g: string): Promise<number> {
  return execute(ctx.conn, t.laneDrain({ queue: ctx.name, group: laneGroupId(g) }));
}
