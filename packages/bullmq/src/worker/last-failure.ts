import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import type { Job } from '../job.js';
import { withStack } from '../job-options.js';

/**
 * Shows on a retried job the failure of its attempt before (`failedReason`, `stacktrace`), as
 * BullMQ's job carries it into the next attempt: read from the job's row. A lease that lapsed
 * leaves Echo's `stalled` mark there, where BullMQ leaves the reason as it was, so that mark is not shown.
 */
export async function showLastFailure(queue: EchoQueue<Envelope>, echoId: string, job: Job): Promise<void> {
  const lastError = (await queue.getJob(echoId))?.lastError;
  if (lastError === undefined || lastError === 'stalled') return;
  const end = lastError.indexOf('\n');
  job.failedReason = end === -1 ? lastError : lastError.slice(0, end);
  job.stacktrace = withStack([], lastError, job.opts.stackTraceLimit);
}
