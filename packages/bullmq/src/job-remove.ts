import type { Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from './envelope.js';
import { JobStateError } from './errors.js';
import { openBeside } from './flow/open-beside.js';
import { removeTree, type RemoveOpts } from './flow/remove-tree.js';
import { keyOfJobId } from './ids.js';
import { isSchedulerJob } from './schedulers/job-schedulers.js';

/**
 * BullMQ's `job.remove`: the job and, unless `removeChildren` is false, its children at every depth;
 * a parent that waited on it stops waiting. Refused while a worker holds any job of the tree, and for
 * a scheduler's next run, as BullMQ refuses them.
 */
export async function removeJob(queue: EchoQueue<Envelope>, echoId: string, jobId: string, envelope: Envelope, opts: RemoveOpts): Promise<void> {
  if (await isSchedulerJob(queue, envelope)) {
    throw new JobStateError(jobId, 'remove', `Job ${jobId} belongs to a job scheduler and cannot be removed directly. remove`);
  }
  await removeTree(openBeside(queue), queue, echoId, jobId, opts);
  // BullMQ frees the deduplication id with the job; Echo's remove leaves one with a ttl to expire.
  const dedupId = envelope.o?.deduplication?.id;
  if (dedupId !== undefined) await queue.releaseDedup(keyOfJobId(dedupId), echoId);
}
