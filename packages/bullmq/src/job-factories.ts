import type { ClaimedJob, JobRecord, Queue as EchoQueue } from '@echo/queue';
import { attemptsMadeOf, attemptsStartedOf, openEnvelope, type Envelope } from './envelope.js';
import { failedReasonOf } from './flow/child-failure.js';
import { Job, type RunningHooks } from './job.js';
import { withStack } from './job-options.js';
import { parseProgress } from './job-values.js';
import type { ManualLease } from './manual.js';

/**
 * How the drop-in builds a `Job` from what Echo answers: a row (`getJob`), a claim (the worker), a
 * claim the stalled sweep failed, a claim taken by hand (`getNextJob`). Each sets the counts BullMQ
 * shows from Echo's attempt count and the envelope's bases (`Envelope.s`, `Envelope.a`).
 */

/** A job read from its row. */
export function jobFromRecord<D, R, N extends string>(queue: EchoQueue<Envelope>, record: JobRecord<Envelope>): Job<D, R, N> {
  const envelope = openEnvelope(record.payload);
  const job = new Job<D, R, N>(queue, record.id, envelope);
  job.attemptsMade = attemptsMadeOf(envelope, record.attempts);
  job.attemptsStarted = attemptsStartedOf(envelope, record.attempts);
  job.stalledCounter = record.stalled;
  if (record.progress !== undefined) job.progress = parseProgress(record.progress);
  if (record.lastError !== undefined) {
    job.failedReason = failedReasonOf(queue.name, envelope, record.lastError);
    job.stacktrace = withStack([], record.lastError, job.opts.stackTraceLimit);
  }
  if (record.state === 'completed') job.returnvalue = record.result as R;
  job.finishedOn = record.finishedAt;
  // The envelope keeps the parent the job was added under; the row says whether it still has one.
  if (record.parent === undefined) {
    job.parent = undefined;
    job.parentKey = undefined;
  }
  return job;
}

/** A job a worker claimed. */
export function jobFromClaim<D, R, N extends string>(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>, hooks: RunningHooks): Job<D, R, N> {
  const envelope = openEnvelope(claimed.payload);
  const job = new Job<D, R, N>(queue, claimed.id, envelope, hooks);
  job.attemptsStarted = attemptsStartedOf(envelope, claimed.attempts);
  job.attemptsMade = attemptsMadeOf(envelope, claimed.attempts - 1);
  job.processedOn = Date.now();
  job.token = `${claimed.id}:${String(claimed.attempts)}`;
  return job;
}

/** A job the stalled sweep failed for good, as read before the sweep, after `stalls` stalls. */
export function jobFromStalled<D, R, N extends string>(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>, stalls: number): Job<D, R, N> {
  const envelope = openEnvelope(claimed.payload);
  const job = new Job<D, R, N>(queue, claimed.id, envelope);
  // BullMQ moves a job past its stall limit back to wait and fails it when next taken, so it
  // reports one more start than the job ran; Echo's sweep fails it in place. A stall is not an
  // attempt made in BullMQ (Echo counts every claim), nor is a step move: only that last failure
  // and earlier ones are.
  job.attemptsStarted = attemptsStartedOf(envelope, claimed.attempts) + 1;
  job.attemptsMade = Math.max(1, attemptsMadeOf(envelope, claimed.attempts) - stalls + 1);
  job.stalledCounter = stalls;
  return job;
}

/** A job a worker handed out by `getNextJob(token)`, settled by hand. */
export function jobFromManual<D, R, N extends string>(lease: ManualLease): Job<D, R, N> {
  const { queue, claimed, token } = lease;
  const envelope = openEnvelope(claimed.payload);
  const job = new Job<D, R, N>(queue, claimed.id, envelope, undefined, lease);
  job.attemptsStarted = attemptsStartedOf(envelope, claimed.attempts);
  job.attemptsMade = attemptsMadeOf(envelope, claimed.attempts - 1);
  job.processedOn = Date.now();
  job.token = token;
  return job;
}
