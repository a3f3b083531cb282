import { assertBrandedId, execute, RateError, reads, transitions as t, UnknownStateError, type BrandedId, type JobId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { settledValue } from './settled.js';
import { jobRecord, type JobPosition, type JobRecord } from '../core/job.js';
import { laneGroupId } from '../core/lane-names.js';

/**
 * The names `counts` accepts: the four sets (queue.md §9.1; the schedule set is `scheduled` here, as
 * `getState`, `listJobs`, the CLI, the dashboard and the Prometheus labels name it), the two metrics
 * counters (`completed` and `failed`: every completion and failure so far), [TS] the parents
 * `awaiting_children` and the `retained` completed rows, and [TS] `lanes`: the jobs pending in every
 * lane, counted apart from `pending` because only a lane claim serves them (a default `Worker` does
 * not: it needs `source: 'lanes'`).
 */
export type CountName = Exclude<t.CountName, 'schedule'> | 'scheduled';

/**
 * Every name `counts` knows, in the order `counts()` with no names answers them: the sets a job
 * waits or runs in, the finished sets, then the two metrics counters.
 */
export const COUNT_NAMES: readonly CountName[] = ['pending', 'lanes', 'active', 'scheduled', 'awaiting_children', 'dead', 'expired', 'retained', 'completed', 'failed'];

/** Names users bring (the spec's set name, BullMQ's states) and the one that means it here. */
const COUNT_HINTS: Readonly<Record<string, string>> = {
  schedule: "the schedule set is counted as 'scheduled' here, the name getState, listJobs, the CLI and the dashboard use",
  delayed: "BullMQ's delayed is 'scheduled' here",
  wait: "BullMQ's wait is 'pending' here",
  waiting: "BullMQ's waiting is 'pending' here",
  prioritized: "BullMQ's prioritized jobs are in 'pending' here (claimed by priority)",
  'waiting-children': "BullMQ's waiting-children is 'awaiting_children' here",
  paused: 'a paused queue keeps its jobs in pending: ask isPaused()',
};

/**
 * Reads several counters in one atomic step, in request order; no names reads every one
 * ({@link COUNT_NAMES}). An unknown name is refused before any wire I/O.
 */
export async function counts<T, N extends CountName>(ctx: QueueContext<T>, asked: readonly N[]): Promise<Record<N, number>> {
  // An empty list is the overview (as BullMQ's getJobCounts() is), never an empty answer.
  const names = asked.length === 0 ? (COUNT_NAMES as readonly N[]) : asked;
  const wire = (names as readonly string[]).map((name): t.CountName => {
    if (name === 'scheduled') return 'schedule';
    if (name === 'schedule' || Object.hasOwn(COUNT_HINTS, name)) throw new UnknownStateError(name, COUNT_HINTS[name]);
    return name as t.CountName;
  });
  const read = (await execute(ctx.conn, t.counts({ queue: ctx.name, names: wire }))) as Record<string, number>;
  const out: Record<string, number> = {};
  for (const name of names as readonly string[]) out[name] = read[name === 'scheduled' ? 'schedule' : name] ?? 0;
  return out;
}

/** Where a job sits right now: a set, `awaiting_children`, `unknown` (a row in no set) or `absent`. */
export async function getState<T>(ctx: QueueContext<T>, id: string): Promise<JobPosition> {
  return execute(ctx.conn, t.stateLookup({ queue: ctx.name, id }));
}

/** The job's row, decoded, or `undefined` when it does not exist. */
export async function getJob<T>(ctx: QueueContext<T>, id: string): Promise<JobRecord<T> | undefined> {
  assertBrandedId(id);
  const row = await reads.sendRead(ctx.conn, reads.queue.job({ keys: ctx.keys, id }));
  return jobRecord(id as JobId, ctx.name, ctx.codec, row);
}

/** A metrics counter and its reserved data series length (always 0: the series is never written). */
export async function getMetrics<T>(ctx: QueueContext<T>, which: 'completed' | 'failed'): Promise<{ count: number; dataPoints: number }> {
  const metric = { keys: ctx.keys, which };
  const [count, points] = await reads.sendReads(ctx.conn, [reads.queue.metricCount(metric), reads.queue.metricPoints(metric)]);
  return { count: settledValue(count), dataPoints: settledValue(points) };
}

/** The newest `n` pending ids, newest first; mint order needs no second index (queue.md §2.1). */
export async function browse<T>(ctx: QueueContext<T>, n: number): Promise<JobId[]> {
  return reads.sendRead(ctx.conn, reads.queue.newestPending({ keys: ctx.keys, n }));
}

/** The job id parked under an idempotency key, or `undefined`. */
export async function getDedupJobId<T>(ctx: QueueContext<T>, dedupId: string): Promise<JobId | undefined> {
  return reads.sendRead(ctx.conn, reads.queue.dedup({ keys: ctx.keys, dedupId }));
}

/** @throws RateError when the queue is at its `meta.concurrency` ceiling; resolves otherwise. */
export async function assertNotMaxed<T>(ctx: QueueContext<T>): Promise<void> {
  await execute(ctx.conn, t.isMaxed({ queue: ctx.name }));
}

/** True when `meta.concurrency` is set and that many jobs are active: the ceiling's refusal, as an answer. */
export async function isMaxed<T>(ctx: QueueContext<T>): Promise<boolean> {
  try {
    await assertNotMaxed(ctx);
    return false;
  } catch (error) {
    if (error instanceof RateError) return true;
    throw error;
  }
}

/** ms the rate window still refuses work; 0 when not limited (queue.md §9.3). */
export async function getRateLimitTtl<T>(ctx: QueueContext<T>, max = 0): Promise<number> {
  return execute(ctx.conn, t.rateTtl({ queue: ctx.name, max }));
}

/** Pending depth per lane, in request order. */
export async function laneDepths<T>(ctx: QueueContext<T>, groups: readonly (BrandedId | string)[]): Promise<number[]> {
  if (groups.length === 0) return [];
  return execute(ctx.conn, t.laneCounts({ queue: ctx.name, groups: groups.map(laneGroupId) }));
}

/** True while the queue-wide pause stands (queue.md §8.1): claims answer nothing, all else goes on. */
export async function isPaused<T>(ctx: QueueContext<T>): Promise<boolean> {
  return reads.sendRead(ctx.conn, reads.queue.paused({ keys: ctx.keys }));
}
