import { strictOptions } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope } from './envelope.js';
import { asBullMQError, BullMQInputError, missingJob, NotSupportedError } from './errors.js';

/** BullMQ's options of `job.retry`. */
export interface RetryOptions {
  /** Start `attemptsMade` over: the rerun reports 1 when it ends (refused for a job with more than one attempt). */
  readonly resetAttemptsMade?: boolean;
  /** Start `attemptsStarted` over: the rerun reports 1 when it starts. */
  readonly resetAttemptsStarted?: boolean;
}

const RETRY_STATES: ReadonlySet<string> = new Set(['failed', 'completed']);
const checkRetryOptions = strictOptions('job.retry options', { known: ['resetAttemptsMade', 'resetAttemptsStarted'] });

/**
 * Runs a failed job (or, with `'completed'`, a completed job the queue kept) again, as BullMQ's
 * `job.retry`. Echo's attempt count fences the job's leases and only grows, so a reset is not a
 * write to it: the envelope records the count it stood at (`Envelope.s`, `Envelope.a`), and the
 * counts the job reports start from there.
 */
export async function retryJob(queue: EchoQueue<Envelope>, echoId: string, jobId: string, state: 'failed' | 'completed', opts: RetryOptions): Promise<void> {
  if (!RETRY_STATES.has(state)) throw new BullMQInputError('state', "retry takes 'failed' or 'completed'");
  checkRetryOptions(opts);
  for (const key of ['resetAttemptsMade', 'resetAttemptsStarted'] as const) {
    if (opts[key] !== undefined && typeof opts[key] !== 'boolean') throw new BullMQInputError(key, `${key} must be a boolean`);
  }
  const rerun = (): Promise<void> => (state === 'failed' ? queue.reprocess(echoId) : queue.reprocessCompleted(echoId)).catch((error: unknown) => {
    throw asBullMQError(error, jobId, 'reprocessJob', state);
  });
  if (opts.resetAttemptsMade !== true && opts.resetAttemptsStarted !== true) return rerun();
  const record = await queue.getJob(echoId);
  if (!record) throw missingJob(jobId, 'reprocessJob');
  const envelope = openEnvelope(record.payload);
  // The cap on attempts is Echo's count against the row's limit, which a reset does not move: a job
  // with one attempt reruns once either way; one with more would get fewer runs than BullMQ gives.
  if (opts.resetAttemptsMade === true && (envelope.o?.attempts ?? 1) > 1) {
    throw new NotSupportedError('job.retry resetAttemptsMade on a job with attempts > 1', 'the attempt count fences the job\'s leases and only grows, so the job\'s retries are not renewed');
  }
  // Only a job in the state asked is rewritten; the state is checked again by the move itself.
  const echoState = await queue.getState(echoId);
  if (echoState !== (state === 'failed' ? 'dead' : 'completed')) return rerun();
  const next: Envelope = {
    ...envelope,
    ...(opts.resetAttemptsMade === true ? { s: record.attempts } : {}),
    ...(opts.resetAttemptsStarted === true ? { a: record.attempts } : {}),
  };
  await queue.updateData(echoId, next);
  try {
    await rerun();
  } catch (error) {
    // The move was refused (the job moved meanwhile): its counts stay as they were.
    await queue.updateData(echoId, envelope).catch(() => undefined);
    throw error;
  }
}
