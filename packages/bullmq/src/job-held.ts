import { NotSupportedError } from './errors.js';
import { countStep } from './job-edits.js';
import { missingLock, type ManualLease } from './manual.js';

/**
 * `job.moveToWait(token)` outside a processor, for a job taken by hand (`worker.getNextJob(token)`):
 * handed back under the claim's fence, uncounted as an attempt (`Envelope.s`), and waiting again at
 * once. Any other job is refused: only the worker that holds it can move it.
 */
export async function manualToWait(lease: ManualLease | undefined, echoId: string, jobId: string, token: string | undefined): Promise<void> {
  if (!lease) throw new NotSupportedError('job.moveToWait outside a processor', 'only the worker that holds the job can move it (a job taken by getNextJob can, with its token)');
  if (token !== lease.token) throw missingLock(jobId, 'moveJobFromActiveToWait');
  await countStep(lease.queue, echoId, jobId, 'moveJobFromActiveToWait');
  await lease.queue.leases().delay(lease.claimed, 0);
  // The hand-back parks the job on the schedule, due now; BullMQ's lands in wait at once. A refused
  // promote means a sweep or a worker already moved it on.
  await lease.queue.promote(lease.claimed.id).catch(() => undefined);
}

