import { assertDedupId, EchoError, execute, InvalidArgumentError, reads, transitions as t, type JobId, type LifecycleEvent } from '@echo/protocol/queue';
import { decodeResult } from '../core/codec.js';
import type { QueueContext } from '../core/context.js';
import type { JobRecord } from '../core/job.js';
import { checkKeepPolicy, checkWaitOptions } from '../core/option-checks.js';
import { QueueEvents } from './events.js';
import { getDedupJobId, getJob } from './reads.js';

/** A bound on finished jobs kept: how many (newest finished first) and for how long. */
export interface KeepBound {
  /**
   * Jobs kept; 0 keeps none, `Infinity` has no count bound. Omitted: no count bound when `ageMs`
   * is given, else the default (completed none, failed 10,000). Completed jobs are trimmed in bulk: the
   * index may run past the bound by `count / 16` (at most 256; none under 16) before a completion
   * trims it back to the bound, so a completion does not pay a trim each time.
   */
  readonly count?: number;
  /** Longest a job is kept after it finished, in ms; no age bound when omitted. */
  readonly ageMs?: number;
}

/**
 * Which finished jobs the queue keeps [TS]. Stored in the queue's meta, so every process settles by
 * the same rule. Defaults: completed keeps none (the row is deleted at completion, as the protocol
 * says, at no extra cost); failed (dead) keeps the newest {@link DEFAULT_FAILED_KEEP} by finish time.
 */
export interface KeepPolicy {
  readonly completed?: KeepBound;
  readonly failed?: KeepBound;
}

/** Dead jobs kept when the policy names no failed bound. */
export const DEFAULT_FAILED_KEEP = 10_000;

/** Writes the queue's retention policy (replacing the previous one as a whole). */
export async function setRetention<T>(ctx: QueueContext<T>, keep: KeepPolicy): Promise<void> {
  checkKeepPolicy(keep);
  await execute(ctx.conn, t.retentionSet({ queue: ctx.name, ...(keep.completed ? { completed: keep.completed } : {}), ...(keep.failed ? { failed: keep.failed } : {}) }));
}

/** The job a business key (or dedup id) names, with its row, or `undefined`. */
export async function getJobByKey<T>(ctx: QueueContext<T>, key: string): Promise<JobRecord<T> | undefined> {
  assertDedupId(key);
  const id = await getDedupJobId(ctx, key);
  return id === undefined ? undefined : getJob(ctx, id);
}

/** A retained completed job's result, decoded; `undefined` when it is not (or no longer) kept or gave none. */
export async function getResult<T>(ctx: QueueContext<T>, id: string): Promise<unknown> {
  const job = await getJob(ctx, id);
  return job?.state === 'completed' ? job.result : undefined;
}

/** A job ended without completing (dead-lettered): carries its last error. */
export class JobFailedError extends EchoError {
  readonly jobId: JobId;
  /** The failure text the job died with. */
  readonly failure: string;
  constructor(jobId: JobId, failure: string) {
    super('job_failed', `job ${jobId} failed: ${failure}`);
    this.jobId = jobId;
    this.failure = failure;
  }
}

/** A waited-for job does not exist and no retained outcome names it (never admitted, removed or trimmed). */
export class JobNotFoundError extends EchoError {
  readonly jobId: string;
  constructor(jobId: string) {
    super('job_not_found', `job ${jobId} does not exist and no outcome of it is retained`);
    this.jobId = jobId;
  }
}

/** No verdict arrived within the wait. */
export class WaitTimeoutError extends EchoError {
  readonly jobId: string;
  constructor(jobId: string, timeoutMs: number) {
    super('wait_timeout', `no verdict for ${jobId} within ${timeoutMs} ms`);
    this.jobId = jobId;
  }
}

/** What a finished wait resolves with. */
export interface Finished {
  readonly id: JobId;
  /**
   * The handler's result, decoded: the value it returned (a string stays a string, an object comes
   * back as the object); `undefined` when it gave none.
   */
  readonly result: unknown;
}

/**
 * The verdict of a job whose row is gone, from the queue's recent completions [TS]
 * (`emq:{q}:outcomes`, one entry per completing call holding about the last 1000, kept only while
 * completed rows are not; protocol's parseOutcomesEntry reads it): completed
 * with its result, or `undefined` when it is not among them.
 */
async function recentOutcome<T>(ctx: QueueContext<T>, id: string): Promise<Finished | undefined> {
  const outcome = (await reads.sendRead(ctx.conn, reads.queue.outcomes({ keys: ctx.keys }))).find((o) => o.job === id);
  return outcome === undefined ? undefined : { id: id as JobId, result: decodeResult(outcome.result) };
}

/** The verdict a row already holds: completed, dead, gone, or still running (`undefined`). */
function verdictOf<T>(id: string, row: JobRecord<T> | undefined): { ok: Finished } | { error: Error } | undefined {
  if (row === undefined) return { error: new JobNotFoundError(id) };
  if (row.state === 'completed') return { ok: { id: row.id, result: row.result } };
  if (row.state === 'dead') return { error: new JobFailedError(row.id, row.lastError ?? 'dead') };
  if (row.state === 'expired') return { error: new JobFailedError(row.id, 'expired') };
  return undefined;
}

/** The verdict already reached: from the row, else (the row gone) from the recent completions. */
async function settledBefore<T>(ctx: QueueContext<T>, id: string): Promise<{ ok: Finished } | { error: Error } | undefined> {
  const verdict = verdictOf(id, await getJob(ctx, id));
  if (verdict === undefined || !('error' in verdict) || !(verdict.error instanceof JobNotFoundError)) return verdict;
  const recent = await recentOutcome(ctx, id);
  return recent === undefined ? verdict : { ok: recent };
}

/**
 * Waits for a job's verdict without missing one that came before the call: subscribes first, then
 * reads the row (a retained outcome answers at once) and, when the row is gone, the queue's recent
 * completions (where the completing script left the verdict in the same step), then listens.
 * Resolves with the decoded result; rejects with {@link JobFailedError} when it died (failure
 * `'expired'` when a claim met it past its deadline),
 * {@link JobNotFoundError} when it is gone and neither retained nor among the recent completions
 * (about the last 1000), and {@link WaitTimeoutError} after `timeoutMs`.
 */
export async function waitUntilFinished<T>(ctx: QueueContext<T>, id: string, options: { readonly timeoutMs?: number; readonly events?: QueueEvents } = {}): Promise<Finished> {
  checkWaitOptions(options);
  const { events, timeoutMs = 30_000 } = options;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new InvalidArgumentError('timeoutMs', 'must be a positive integer');
  const listener = events ?? (await QueueEvents.open(ctx.conn, ctx.name));
  try {
    return await new Promise<Finished>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: { ok: Finished } | { error: Error }): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        off();
        if ('ok' in outcome) resolve(outcome.ok);
        else reject(outcome.error);
      };
      const timer = setTimeout(() => finish({ error: new WaitTimeoutError(id, timeoutMs) }), timeoutMs);
      const off = listener.on('*', (event: LifecycleEvent) => {
        if (event.job !== id) return;
        if (event.event === 'completed') finish({ ok: { id: id as JobId, result: decodeResult(event.fields.result) } });
        // A claim met it past its deadline: it will never run.
        else if (event.event === 'expired') finish({ error: new JobFailedError(id as JobId, 'expired') });
        // [TS] `outcome` is Echo's own field: a runtime that follows only the spec publishes `failed`
        // without it, so the row tells whether the job died.
        else if (event.event === 'failed' && (event.fields.outcome === 'dead' || event.fields.outcome === undefined)) {
          // The event carries no reason; the dead row (kept by failed retention) does.
          getJob(ctx, id).then(
            (row) => {
              if (event.fields.outcome === 'dead' || row?.state === 'dead') finish({ error: new JobFailedError(id as JobId, row?.lastError ?? 'dead') });
            },
            () => finish({ error: new JobFailedError(id as JobId, 'dead') }),
          );
        }
      });
      // Subscribed: now the row. A verdict before this read is in the row (or, when the row went
      // with it, in the recent completions, written in the same step); one after it, on the channel.
      settledBefore(ctx, id).then(
        (verdict) => {
          if (verdict !== undefined) finish(verdict);
        },
        (error: unknown) => finish({ error: error instanceof Error ? error : new Error(String(error)) }),
      );
    });
  } finally {
    if (events === undefined) await listener.close();
  }
}
