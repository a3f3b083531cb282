import { encodeResult, type ClaimedJob, type Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope } from './envelope.js';
import { UnrecoverableError } from './errors.js';

/**
 * What a job taken by `worker.getNextJob(token)` needs to be settled by hand (BullMQ's manual
 * processing: `job.moveToCompleted`, `job.moveToFailed`, `job.extendLock`): the queue's leases and
 * the claim, fenced by the claim's attempt number.
 */
export interface ManualLease {
  readonly queue: EchoQueue<Envelope>;
  readonly claimed: ClaimedJob<Envelope>;
  /** The token the application passed to `getNextJob`; a settle under another token is refused. */
  readonly token: string;
  /** The lock duration of the worker that took the job, ms. */
  readonly lockMs: number;
  /** The worker's backoff for the job's next attempt, ms. */
  readonly backoff: (attempt: number, error: Error) => number;
  /** Takes the next job under the same token without waiting (BullMQ's `fetchNext`). */
  readonly fetchNext: () => Promise<NextJobData>;
}

/**
 * What a manual settle answers with `fetchNext`, as BullMQ's does: the next job taken under the same
 * token as `[jobData, jobId, limitUntil, delayUntil]` (its fields as BullMQ stores them: strings,
 * `data` and `opts` as JSON), or `[]` when none was taken or none was asked for.
 */
export type NextJobData = readonly [Readonly<Record<string, string>>, string, number, number] | readonly [];

/** BullMQ's text when a job is settled by a token that does not hold its lock. */
export function missingLock(jobId: string, command: string): Error {
  return new Error(`Missing lock for job ${jobId}. ${command}`);
}

/** Completes a hand-held job with `returnValue`. */
export async function completeHeld(lease: ManualLease, returnValue: unknown): Promise<void> {
  const result = encodeResult(returnValue);
  await lease.queue.leases().complete(lease.claimed, result);
}

/**
 * Fails an attempt of a hand-held job: it waits out its backoff and runs again while it has
 * attempts left (BullMQ's `attempts`, default 1), else it fails for good. Answers where it went:
 * `'dead'` (failed for good), `'delayed'` (waiting out a backoff) or `'waiting'` (no backoff).
 */
export async function failHeld(lease: ManualLease, error: Error): Promise<'dead' | 'delayed' | 'waiting'> {
  const attempts = openEnvelope(lease.claimed.payload).o?.attempts ?? lease.claimed.maxAttempts ?? 1;
  const last = error instanceof UnrecoverableError || lease.claimed.attempts >= attempts;
  const delayMs = last ? 0 : lease.backoff(lease.claimed.attempts, error);
  const text = error.stack ?? `${error.name}: ${error.message}`;
  const outcome = await lease.queue.leases().retry(lease.claimed, delayMs, last ? lease.claimed.attempts : attempts, text, { publish: true });
  // Echo's retry always parks the job on the schedule; BullMQ puts a job without backoff straight
  // back in wait, where getState and the next getNextJob see it. A refused promote means the job
  // already left the schedule (a sweep promoted it, or a worker took it): nothing left to do.
  if (outcome === 'scheduled' && delayMs === 0) await lease.queue.promote(lease.claimed.id).catch(() => undefined);
  return outcome === 'dead' ? 'dead' : delayMs === 0 ? 'waiting' : 'delayed';
}

/** Pushes a hand-held job's lock out to `durationMs` from now. */
export async function extendHeld(lease: ManualLease, durationMs: number): Promise<void> {
  await lease.queue.leases().extendLock(lease.claimed, durationMs);
}
