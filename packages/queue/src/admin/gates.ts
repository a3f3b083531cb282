import { checkTimeBound, execute, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkRateLimit } from '../core/option-checks.js';

/** A queue's rate limit: at most `max` jobs claimed per window of `durationMs`, across every worker. */
export type RateLimit = t.RateLimit;

/**
 * Sets the queue's rate limit, enforced by every claim on the server so workers in any number of
 * processes share it; `null` lifts it. A changed limit starts a fresh window.
 */
export async function setRateLimit<T>(ctx: QueueContext<T>, limit: RateLimit | null): Promise<void> {
  checkRateLimit(limit);
  await execute(ctx.conn, t.setGates({ queue: ctx.name, limiter: limit }));
}

/** Caps the jobs active at once across every worker of the queue, enforced by the claims; `null` lifts it. */
export async function setGlobalConcurrency<T>(ctx: QueueContext<T>, concurrency: number | null): Promise<void> {
  await execute(ctx.conn, t.setGates({ queue: ctx.name, concurrency }));
}

/** [TS] Opens the queue's rate window now (the limit stays): the next claim starts a fresh window. */
export async function resetRateLimit<T>(ctx: QueueContext<T>): Promise<boolean> {
  return execute(ctx.conn, t.rateReset({ queue: ctx.name }));
}

/**
 * Refuses every claim for `ms` from now (a handler that got a 429 from what it calls). Needs a rate
 * limit on the queue; answers false, writing nothing, when there is none.
 */
export async function rateLimit<T>(ctx: QueueContext<T>, ms: number): Promise<boolean> {
  checkTimeBound('rateLimit', 'ms', ms, 'span');
  return execute(ctx.conn, t.rateLimit({ queue: ctx.name, ms }));
}
