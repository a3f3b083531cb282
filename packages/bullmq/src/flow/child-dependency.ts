import { EmqError } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import { JobStateError, missingJob, NotSupportedError } from '../errors.js';

/**
 * BullMQ's `job.removeChildDependency()`: the job stops being a child of its parent, which no longer
 * waits for it (and runs when it was its last open child). Answers false when the job has no
 * parent, or has already completed or failed for it. Refused with BullMQ's texts when the job or
 * its parent is gone.
 */
export async function removeChildDependency(queue: EchoQueue<Envelope>, echoId: string, jobId: string, parentKey: string | undefined): Promise<boolean> {
  const command = 'removeChildDependency';
  try {
    return await queue.detachChild(echoId);
  } catch (error) {
    if (!(error instanceof EmqError)) throw error;
    if (error.detail === 'job gone') throw missingJob(jobId, command, error);
    if (error.detail === 'parent missing') throw new JobStateError(jobId, command, `Missing key for parent job ${parentKey ?? ''}. ${command}`, error);
    if (error.detail === 'parent in another queue') {
      throw new NotSupportedError('removeChildDependency on a child of a parent in another queue', "the parent's count lives in its own queue, which one step cannot reach with the child's");
    }
    throw error;
  }
}
