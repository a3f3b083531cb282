import type { JobContext, Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import { countStep } from '../job-edits.js';

/**
 * Puts a job whose processor threw `RateLimitError` back to wait, its attemptsMade unchanged (the
 * start counts as a step, as BullMQ's moveJobFromActiveToWait leaves `atm` alone). A job gone
 * meanwhile (obliterated) is reported as BullMQ's `Missing key` error, and the worker leaves the
 * job alone.
 */
export async function giveBackLimited(queue: EchoQueue<Envelope>, echoId: string, jobId: string, context: JobContext, onError: (error: unknown) => void): Promise<void> {
  const counted = await countStep(queue, echoId, jobId, 'moveJobFromActiveToWait').then(
    () => true,
    (failure: unknown) => {
      onError(failure);
      return false;
    },
  );
  // Given back even when the count failed, so the worker does not settle the job; a job that is
  // gone answers StaleError, already reported as its missing key.
  await context.giveBack().catch((failure: unknown) => {
    if (counted) onError(failure);
  });
}
