import { assertBrandedId, InvalidArgumentError, queueKeys, scripts, type JobId } from '@echo/protocol';
import { laneBookkeeping, type QueueContext } from './context.js';
import type { ParentLink } from './job.js';

/** What a settlement needs to know about the job: its id, its token and, for flow children, its parent. */
export interface HeldJob {
  readonly id: JobId;
  readonly attempts: number;
  readonly parent?: ParentLink | undefined;
}

/** Options for {@link complete}. */
export interface CompleteOptions {
  /** Publish the `completed` event inside the same script, atomically with the verdict. */
  readonly publish?: boolean;
}

/** The retry verdict: rescheduled for another attempt, or dead-lettered at the cap. */
export type RetryOutcome = 'scheduled' | 'dead';

function settleKeys<T>(ctx: QueueContext<T>, job: HeldJob, metrics: string): string[] {
  const k = ctx.keys;
  return [k.active, k.pending, k.schedule, k.dead, k.job(job.id), metrics, ...laneBookkeeping(k), k.laneRoot];
}

function token(job: HeldJob): string {
  if (!Number.isSafeInteger(job.attempts) || job.attempts < 0) throw new InvalidArgumentError('token', 'must be a non-negative integer');
  return String(job.attempts);
}

/**
 * Settles a held job as done (queue.md §3.3). For a flow child the parent is fed in the same atomic
 * step: directly when it shares the queue, through this queue's outbox otherwise. The row leaves
 * with its `:lock` and `:logs`.
 * @throws StaleError when the token no longer matches; GoneError when the job no longer exists.
 */
export async function complete<T>(ctx: QueueContext<T>, job: HeldJob, result?: string, options: CompleteOptions = {}): Promise<void> {
  assertBrandedId(job.id);
  const keys = [...settleKeys(ctx, job, ctx.keys.metricsCompleted), ctx.keys.jobRoot, ctx.keys.events];
  const value = result ?? job.id;
  const parent = job.parent;
  let mode = '';
  if (parent) {
    if (parent.queue === ctx.name) {
      mode = 'sq';
      keys.push(ctx.keys.jobSub(parent.id, 'dependencies'), ctx.keys.jobSub(parent.id, 'processed'), ctx.keys.job(parent.id));
    } else {
      mode = 'xq';
      keys.push(ctx.keys.flowOutbox);
    }
  }
  const parentQueue = parent && mode === 'xq' ? queueKeys(parent.queue).queue : '';
  const args = [job.id, token(job), mode, parent?.id ?? '', value, parentQueue];
  if (options.publish) args.push('1');
  await ctx.conn.run(scripts().complete, keys, args);
}

/** How one member of {@link completeMany} ended. */
export type CompleteManyOutcome = 'ok' | 'gone' | 'stale' | 'flow';

const BATCH_CODES: Readonly<Record<number, CompleteManyOutcome>> = { 1: 'ok', [-1]: 'gone', [-2]: 'stale', [-3]: 'flow' };

/**
 * Settles many held plain jobs as done in one script, each fenced on its own token [TS]. Answers
 * one outcome per job, in order; a flow child answers `flow` and must go through {@link complete}.
 */
export async function completeMany<T>(ctx: QueueContext<T>, jobs: readonly HeldJob[], options: CompleteOptions = {}): Promise<CompleteManyOutcome[]> {
  if (jobs.length === 0) return [];
  const k = ctx.keys;
  const args: string[] = [options.publish ? '1' : ''];
  for (const job of jobs) {
    assertBrandedId(job.id);
    args.push(job.id, token(job));
  }
  const keys = [k.active, k.pending, k.schedule, k.dead, k.metricsCompleted, ...laneBookkeeping(k), k.laneRoot, k.jobRoot, k.events];
  const codes = (await ctx.conn.run(scripts().complete_batch, keys, args)) as number[];
  return codes.map((code) => BATCH_CODES[code] ?? 'gone');
}

/**
 * Settles a held job as failed (queue.md §4.1): rescheduled after `delayMs`, or dead-lettered once
 * its attempts reach `maxAttempts`, with `error` kept as `last_error` either way.
 */
export async function retry<T>(ctx: QueueContext<T>, job: HeldJob, delayMs: number, maxAttempts: number, error: string): Promise<RetryOutcome> {
  assertBrandedId(job.id);
  if (!Number.isSafeInteger(delayMs) || delayMs < 0) throw new InvalidArgumentError('delayMs', 'must be an integer >= 0');
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw new InvalidArgumentError('maxAttempts', 'must be an integer >= 1');
  const keys = settleKeys(ctx, job, ctx.keys.metricsFailed);
  const parent = job.parent;
  let mode = '';
  if (parent) {
    if (parent.queue === ctx.name) {
      mode = `sq:${parent.policy}`;
      keys.push(
        ctx.keys.jobSub(parent.id, 'failed'),
        ctx.keys.jobSub(parent.id, 'unsuccessful'),
        ctx.keys.jobSub(parent.id, 'dependencies'),
        ctx.keys.job(parent.id),
      );
    } else {
      mode = `xq:${parent.policy}`;
      keys.push(ctx.keys.flowOutbox);
    }
  }
  const parentQueue = parent && mode.startsWith('xq') ? queueKeys(parent.queue).queue : '';
  const reply = await ctx.conn.run(scripts().retry, keys, [job.id, token(job), delayMs, maxAttempts, error, mode, parent?.id ?? '', parentQueue]);
  return reply === 'dead' ? 'dead' : 'scheduled';
}

/**
 * Hands a held job back until later without counting a failure; attempts is kept (queue.md §8.3).
 * `until` is a delay in ms from the server's now, or an absolute Date.
 */
export async function delay<T>(ctx: QueueContext<T>, job: HeldJob, until: number | Date): Promise<void> {
  assertBrandedId(job.id);
  const [mode, ms] = until instanceof Date ? ['at', until.getTime()] : ['in', until];
  if (!Number.isSafeInteger(ms) || ms < 0) throw new InvalidArgumentError('delay', 'must be a non-negative integer of ms or a valid Date');
  const k = ctx.keys;
  await ctx.conn.run(scripts().delay, [k.active, k.schedule, k.job(job.id), ...laneBookkeeping(k), k.laneRoot], [job.id, token(job), mode, ms]);
}

/** Pushes one held job's lease out to `leaseMs` from the server's now (queue.md §6.3). */
export async function extendLock<T>(ctx: QueueContext<T>, job: HeldJob, leaseMs: number): Promise<void> {
  assertBrandedId(job.id);
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) throw new InvalidArgumentError('leaseMs', 'must be a positive integer');
  await ctx.conn.run(scripts().extend_lock, [ctx.keys.active, ctx.keys.job(job.id)], [job.id, token(job), leaseMs]);
}

/**
 * Extends many leases under one server time; answers the ids that could NOT be extended (gone,
 * stale or no longer active), so the caller can stop working on them.
 */
export async function extendLocks<T>(ctx: QueueContext<T>, jobs: readonly HeldJob[], leaseMs: number): Promise<JobId[]> {
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) throw new InvalidArgumentError('leaseMs', 'must be a positive integer');
  if (jobs.length === 0) return [];
  const args: (string | number)[] = [leaseMs];
  for (const job of jobs) {
    assertBrandedId(job.id);
    args.push(job.id, token(job));
  }
  return (await ctx.conn.run(scripts().extend_locks, [ctx.keys.active, ctx.keys.jobRoot], args)) as JobId[];
}
