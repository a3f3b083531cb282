import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from './envelope.js';
import { NotSupportedError } from './errors.js';
import { countStep } from './job-edits.js';
import type { RunningHooks } from './job.js';

/**
 * The moves a processor makes on the job it runs, through its lease context (BullMQ's step jobs):
 * park it until a time, put it back to wait, park it until its children are done. Each is a step,
 * counted in the envelope (`Envelope.s`) while the processor still holds the job, so the job's
 * `attemptsMade` does not grow. A job held by hand (`getNextJob`) moves by job-held.ts instead.
 */

/** `job.moveToDelayed(timestamp)`: parks the running job until `timestamp` (epoch ms); refused outside a processor. */
export async function stepToDelayed(queue: EchoQueue<Envelope>, echoId: string, jobId: string, hooks: RunningHooks | undefined, timestamp: number): Promise<void> {
  if (!hooks) throw new NotSupportedError('job.moveToDelayed outside a processor', 'only the worker that holds the job can move it');
  await countStep(queue, echoId, jobId, 'moveToDelayed');
  await hooks.context.moveToDelayed({ at: timestamp });
}

/** `job.moveToWait()` from a processor: the job waits again at once, to run as a new start. */
export async function stepToWait(queue: EchoQueue<Envelope>, echoId: string, jobId: string, hooks: RunningHooks): Promise<void> {
  await countStep(queue, echoId, jobId, 'moveJobFromActiveToWait');
  await hooks.context.moveToDelayed({ delayMs: 0 });
}

/** `job.moveToWaitingChildren()` from a processor: parks the job until its children are done; false when none is open. */
export async function stepToWaitingChildren(queue: EchoQueue<Envelope>, echoId: string, jobId: string, hooks: RunningHooks): Promise<boolean> {
  // Counted while the job is still held: once parked, its last child may release it to another
  // slot before a count written afterwards lands. A move that does not happen takes it back.
  await countStep(queue, echoId, jobId, 'moveToWaitingChildren');
  const waiting = await hooks.context.moveToWaitingChildren();
  if (!waiting) await countStep(queue, echoId, jobId, 'moveToWaitingChildren', -1);
  return waiting;
}
