import { execute, transitions as t, type HeldJob, type JobId } from '@echo/protocol';
import type { QueueContext } from '../context.js';

export type { HeldJob };

/** Options for {@link complete}. */
export interface CompleteOptions {
  /** Publish the `completed` event inside the same script, atomically with the verdict. */
  readonly publish?: boolean;
}

/** Options for {@link retry} and {@link delay}. */
export interface SettleOptions {
  /** Publish the settlement's event (`failed` with its `outcome`, or `delayed`) inside the same script. */
  readonly publish?: boolean;
}

/** The retry verdict: rescheduled for another attempt, or dead-lettered at the cap. */
export type RetryOutcome = t.RetryOutcome;

/** How one member of {@link completeMany} ended. */
export type CompleteManyOutcome = t.BatchCompletion;

/**
 * Settles a held job as done (queue.md §3.3). For a flow child the parent is fed in the same atomic
 * step: directly when it shares the queue, through this queue's outbox otherwise. The row leaves
 * with its `:lock` and `:logs`.
 * @throws StaleError when the token no longer matches; GoneError when the job no longer exists.
 */
export async function complete<T>(ctx: QueueContext<T>, job: HeldJob, result?: string, options: CompleteOptions = {}): Promise<void> {
  await execute(ctx.conn, t.complete({ queue: ctx.name, job, ...(result === undefined ? {} : { result }), publish: options.publish === true }));
}

/**
 * Settles many held plain jobs as done in one script, each fenced on its own token [TS]. Answers
 * one outcome per job, in order; a flow child answers `flow` and must go through {@link complete}.
 */
export async function completeMany<T>(ctx: QueueContext<T>, jobs: readonly HeldJob[], options: CompleteOptions = {}): Promise<CompleteManyOutcome[]> {
  if (jobs.length === 0) return [];
  return execute(ctx.conn, t.completeBatch({ queue: ctx.name, jobs, publish: options.publish === true }));
}

/**
 * Settles a held job as failed (queue.md §4.1): rescheduled after `delayMs`, or dead-lettered once
 * its attempts reach `maxAttempts`, with `error` kept as `last_error` either way.
 */
export async function retry<T>(ctx: QueueContext<T>, job: HeldJob, delayMs: number, maxAttempts: number, error: string, options: SettleOptions = {}): Promise<RetryOutcome> {
  return execute(ctx.conn, t.retry({ queue: ctx.name, job, delayMs, maxAttempts, error, publish: options.publish === true }));
}

/**
 * Hands a held job back until later without counting a failure; attempts is kept (queue.md §8.3).
 * `until` is a delay in ms from the server's now, or an absolute Date.
 */
export async function delay<T>(ctx: QueueContext<T>, job: HeldJob, until: number | Date, options: SettleOptions = {}): Promise<void> {
  await execute(ctx.conn, t.delay({ queue: ctx.name, job, until, publish: options.publish === true }));
}

/** Pushes one held job's lease out to `leaseMs` from the server's now (queue.md §6.3). */
export async function extendLock<T>(ctx: QueueContext<T>, job: HeldJob, leaseMs: number): Promise<void> {
  await execute(ctx.conn, t.extendLock({ queue: ctx.name, job, leaseMs }));
}

/**
 * Extends many leases under one server time; answers the ids that could NOT be extended (gone,
 * stale or no longer active), so the caller can stop working on them. With `markerTtlMs`, each
 * extended job's `:lock` marker is refreshed in the same step.
 */
export async function extendLocks<T>(ctx: QueueContext<T>, jobs: readonly HeldJob[], leaseMs: number, markerTtlMs?: number): Promise<JobId[]> {
  if (jobs.length === 0) return [];
  return execute(ctx.conn, t.extendLocks({ queue: ctx.name, jobs, leaseMs, ...(markerTtlMs === undefined ? {} : { markerTtlMs }) }));
}
