import { assertBrandedId, assertDedupId, GoneError, InvalidArgumentError, scripts, type JobId } from '@echo/protocol';
import { laneBookkeeping, type QueueContext } from './context.js';

function checkedId(id: string): JobId {
  assertBrandedId(id);
  return id as JobId;
}

function gone(reply: unknown): void {
  if (reply === -1) throw new GoneError();
}

/** Stops every claim on the queue; admission, promote and reap go on (queue.md §8.1). */
export async function pause<T>(ctx: QueueContext<T>): Promise<void> {
  await ctx.conn.run(scripts().queue_pause, [ctx.keys.meta], []);
}

/** Lets claims run again. */
export async function resume<T>(ctx: QueueContext<T>): Promise<void> {
  await ctx.conn.run(scripts().queue_resume, [ctx.keys.meta], []);
}

/** Deletes every waiting job, and scheduled ones when asked; active jobs are untouched (queue.md §8.4). */
export async function drain<T>(ctx: QueueContext<T>, options: { includeScheduled?: boolean } = {}): Promise<number> {
  const k = ctx.keys;
  const keys = options.includeScheduled ? [k.jobRoot, k.pending, k.schedule] : [k.jobRoot, k.pending];
  return (await ctx.conn.run(scripts().drain, keys, [])) as number;
}

/**
 * Deletes a paused queue entirely, in bounded steps (queue.md §8.4). Refuses an unpaused queue,
 * active jobs and an unsent flow outbox unless `force` is set.
 * @throws StateError with detail `not paused`, `active jobs present` or `outbox not empty`.
 */
export async function obliterate<T>(ctx: QueueContext<T>, options: { force?: boolean; budget?: number } = {}): Promise<void> {
  const budget = options.budget ?? 1000;
  if (!Number.isSafeInteger(budget) || budget < 1) throw new InvalidArgumentError('budget', 'must be a positive integer');
  const k = ctx.keys;
  const fixed = [
    k.meta, k.pending, k.active, k.schedule, k.dead, k.ring, k.paused, k.glimit, k.gactive, k.gweight, k.wake, k.limiter,
    k.metricsCompleted, k.metricsFailed, k.metricsCompletedData, k.metricsFailedData, k.repeat, k.flowOutbox, k.jobRoot, k.laneRoot,
  ];
  for (;;) {
    const names = (await ctx.conn.command('ZRANGE', k.repeat, 0, -1)) as string[];
    const reply = await ctx.conn.run(
      scripts().obliterate,
      [...fixed, ...names.map((n) => k.repeatRecord(n))],
      [options.force ? 'force' : '', budget, ...names],
    );
    if (reply === 0) return;
  }
}

/** Replaces a job's payload. @throws GoneError when the job does not exist. */
export async function updateData<T>(ctx: QueueContext<T>, id: string, payload: T): Promise<void> {
  const jid = checkedId(id);
  gone(await ctx.conn.run(scripts().update_data, [ctx.keys.job(jid)], [ctx.codec.encode(payload)]));
}

/** Records progress and publishes the `progress` event atomically. @throws GoneError. */
export async function updateProgress<T>(ctx: QueueContext<T>, id: string, progress: string | number): Promise<void> {
  const jid = checkedId(id);
  gone(await ctx.conn.run(scripts().update_progress, [ctx.keys.job(jid), ctx.keys.events], [jid, String(progress)]));
}

/** Appends a log line, keeping only the newest `keep` lines when `keep > 0`; answers the length. */
export async function addLog<T>(ctx: QueueContext<T>, id: string, line: string, keep = 0): Promise<number> {
  const jid = checkedId(id);
  if (!Number.isSafeInteger(keep) || keep < 0) throw new InvalidArgumentError('keep', 'must be an integer >= 0');
  const reply = await ctx.conn.run(scripts().add_log, [ctx.keys.job(jid), ctx.keys.jobSub(jid, 'logs')], [line, keep === 0 ? '' : keep]);
  gone(reply);
  return reply as number;
}

/** A job's log lines in append order. @throws GoneError when the job does not exist. */
export async function getLogs<T>(ctx: QueueContext<T>, id: string): Promise<string[]> {
  const jid = checkedId(id);
  const [exists, lines] = await ctx.conn.pipeline([
    ['EXISTS', ctx.keys.job(jid)],
    ['LRANGE', ctx.keys.jobSub(jid, 'logs'), 0, -1],
  ]);
  if (!exists?.ok) throw exists?.error ?? new GoneError();
  if (exists.value === 0) throw new GoneError();
  if (!lines?.ok) throw lines?.error ?? new GoneError();
  return lines.value as string[];
}

/**
 * Deletes a job wherever it sits, unless a worker holds its lock, and releases its idempotency key
 * when given and still naming it (queue.md §8.5).
 * @throws GoneError; LockedError while locked.
 */
export async function removeJob<T>(ctx: QueueContext<T>, id: string, options: { dedupId?: string } = {}): Promise<void> {
  const jid = checkedId(id);
  const k = ctx.keys;
  const keys = [k.pending, k.active, k.schedule, k.dead, ...laneBookkeeping(k), k.jobRoot, k.laneRoot];
  if (options.dedupId !== undefined) {
    assertDedupId(options.dedupId);
    keys.push(k.dedup(options.dedupId));
  }
  gone(await ctx.conn.run(scripts().remove_job, keys, [jid, options.dedupId ?? '']));
}
