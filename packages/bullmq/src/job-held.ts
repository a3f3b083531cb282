import { EmqError, type JobId } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from './envelope.js';
import { JobStateError, NotSupportedError } from './errors.js';
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


/**
 * The lease a manual settle goes through: the one `getNextJob` made, or (for a job read another
 * way) the running attempt read from its row. BullMQ refuses a job nobody holds with this text.
 */
export async function heldLease(queue: EchoQueue<Envelope>, echoId: string, jobId: string, manual: ManualLease | undefined, token: string, command: string, stateFirst: boolean): Promise<ManualLease> {
  if (manual) return manual;
  const state = await queue.getState(echoId);
  if (stateFirst && state !== 'active') throw new JobStateError(jobId, command, `Job ${jobId} is not in the active state. ${command}`);
  const claimed = state === 'active' ? await queue.leases().readAsClaimed(echoId as JobId) : undefined;
  if (!claimed) throw missingLock(jobId, command);
  // No worker took it by hand here, so none takes a next job for it either.
  return { queue, claimed, token, lockMs: 30_000, backoff: () => 0, fetchNext: () => Promise.resolve([]) };
}

/**
 * `job.moveToWaitingChildren(token)` outside a processor, for a job held by hand (`getNextJob`, or
 * the running attempt read from its row, as the manual settles take it): parks it until its open
 * children are done; false when none is open. The wait is a step, uncounted as an attempt
 * (`Envelope.s`). BullMQ's token `'0'` skips the lock check and refuses a job not active; any other
 * token that no longer holds the job is `Missing lock`; no token at all is refused.
 */
export async function manualWaitChildren(queue: EchoQueue<Envelope>, echoId: string, jobId: string, manual: ManualLease | undefined, token: string | undefined): Promise<boolean> {
  if (token === undefined) throw new NotSupportedError('job.moveToWaitingChildren outside a processor without a token', 'only a holder of the job can move it (a job taken by getNextJob can, with its token)');
  const command = 'moveToWaitingChildren';
  const lease = await heldLease(queue, echoId, jobId, token === '0' ? undefined : manual, token, command, token === '0');
  if (manual && token !== '0' && token !== manual.token) throw missingLock(jobId, command);
  await countStep(queue, echoId, jobId, command);
  let open: number;
  try {
    open = await queue.leases().waitForChildren(lease.claimed);
  } catch (error) {
    await countStep(queue, echoId, jobId, command, -1);
    // The claim no longer holds the job (it was moved or settled since): BullMQ's lock refusal.
    if (error instanceof EmqError && error.errorClass === 'EMQSTALE') throw missingLock(jobId, command);
    throw error;
  }
  if (open === 0) await countStep(queue, echoId, jobId, command, -1);
  return open > 0;
}
