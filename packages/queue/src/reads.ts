import { assertBrandedId, assertDedupId, hashReply, InvalidArgumentError, scripts, UnknownStateError, type BrandedId, type JobId } from '@echo/protocol';
import type { QueueContext } from './context.js';
import { jobRecord, type JobPosition, type JobRecord } from './job.js';

/** The names `counts` accepts: the four sets, and the two metrics counters (queue.md §9.1). */
export type CountName = 'pending' | 'active' | 'schedule' | 'dead' | 'completed' | 'failed';

const SETS = new Set(['pending', 'active', 'schedule', 'dead']);
const METRICS = new Set(['completed', 'failed']);

/**
 * Reads several counters in one atomic step, in request order. An unknown name is refused before
 * any wire I/O.
 */
export async function counts<T, N extends CountName>(ctx: QueueContext<T>, names: readonly N[]): Promise<Record<N, number>> {
  const k = ctx.keys;
  const keys: string[] = [];
  const kinds: string[] = [];
  for (const name of names as readonly string[]) {
    if (SETS.has(name)) {
      keys.push(k[name as 'pending']);
      kinds.push('z');
    } else if (METRICS.has(name)) {
      keys.push(name === 'completed' ? k.metricsCompleted : k.metricsFailed);
      kinds.push('m');
    } else {
      throw new UnknownStateError(name);
    }
  }
  const out = {} as Record<N, number>;
  if (names.length === 0) return out;
  const reply = (await ctx.conn.run(scripts().counts, keys, kinds)) as number[];
  names.forEach((name, i) => (out[name] = reply[i] ?? 0));
  return out;
}

/** Where a job sits right now: a set, `awaiting_children`, `unknown` (a row in no set) or `absent`. */
export async function getState<T>(ctx: QueueContext<T>, id: string): Promise<JobPosition> {
  assertBrandedId(id);
  const k = ctx.keys;
  return (await ctx.conn.run(scripts().state_lookup, [k.pending, k.active, k.schedule, k.dead, k.job(id), k.laneRoot], [id])) as JobPosition;
}

/** The job's row, decoded, or `undefined` when it does not exist. */
export async function getJob<T>(ctx: QueueContext<T>, id: string): Promise<JobRecord<T> | undefined> {
  assertBrandedId(id);
  const reply = await ctx.conn.command('HGETALL', ctx.keys.job(id));
  return jobRecord(id as JobId, ctx.name, ctx.codec, hashReply(reply));
}

/** A metrics counter and its reserved data series length (always 0: the series is never written). */
export async function getMetrics<T>(ctx: QueueContext<T>, which: 'completed' | 'failed'): Promise<{ count: number; dataPoints: number }> {
  const k = ctx.keys;
  const [hash, data] = which === 'completed' ? [k.metricsCompleted, k.metricsCompletedData] : [k.metricsFailed, k.metricsFailedData];
  const [count, points] = await ctx.conn.pipeline([
    ['HGET', hash, 'count'],
    ['LLEN', data],
  ]);
  if (!count?.ok) throw count?.error ?? new Error('no reply');
  if (!points?.ok) throw points?.error ?? new Error('no reply');
  return { count: Number(count.value ?? 0), dataPoints: Number(points.value) };
}

/** The newest `n` pending ids, newest first; mint order needs no second index (queue.md §2.1). */
export async function browse<T>(ctx: QueueContext<T>, n: number): Promise<JobId[]> {
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('n', 'must be a positive integer');
  return (await ctx.conn.command('ZRANGE', ctx.keys.pending, '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, n)) as JobId[];
}

/** The job id parked under an idempotency key, or `undefined`. */
export async function getDedupJobId<T>(ctx: QueueContext<T>, dedupId: string): Promise<JobId | undefined> {
  assertDedupId(dedupId);
  const value = (await ctx.conn.command('GET', ctx.keys.dedup(dedupId))) as string | null;
  return value === null ? undefined : (value as JobId);
}

/** @throws RateError when the queue is at its `meta.concurrency` ceiling; resolves otherwise. */
export async function assertNotMaxed<T>(ctx: QueueContext<T>): Promise<void> {
  await ctx.conn.run(scripts().is_maxed, [ctx.keys.meta, ctx.keys.active], []);
}

/** ms the rate window still refuses work; 0 when not limited (queue.md §9.3). */
export async function getRateLimitTtl<T>(ctx: QueueContext<T>, max = 0): Promise<number> {
  if (!Number.isSafeInteger(max) || max < 0) throw new InvalidArgumentError('max', 'must be an integer >= 0');
  return (await ctx.conn.run(scripts().rate_ttl, [ctx.keys.limiter, ctx.keys.meta], [max])) as number;
}

/** Pending depth per lane, in request order. */
export async function laneDepths<T>(ctx: QueueContext<T>, groups: readonly (BrandedId | string)[]): Promise<number[]> {
  if (groups.length === 0) return [];
  for (const g of groups) assertBrandedId(g);
  return (await ctx.conn.run(scripts().lane_counts, [ctx.keys.laneRoot], [...groups])) as number[];
}
