import type { Queue as EchoQueue } from '@echo/queue';
import { makeEnvelope, openEnvelope, type Envelope } from '../envelope.js';
import { NotSupportedError } from '../errors.js';
import { keyOfJobId, qualifiedNameOf } from '../ids.js';
import { openBeside } from './open-beside.js';
import { Job } from '../job.js';
import type { JobsOptions } from '../job-options.js';
import { addUnder, findParent, leafUnder, parentCannotBeReplaced, type ParentOption } from './parent-option.js';

/**
 * BullMQ's `Queue.add` with a `parent` option: the job joins an existing parent (in any queue) as
 * one more child it waits for. The parent must exist and not have finished. The child takes Echo's
 * id as its job id. A `jobId` that names a job already there answers that job, as BullMQ does,
 * unless the job has another parent (refused with BullMQ's text); a new child cannot take a
 * `jobId` here, as the flow admission keeps no business key.
 */
export async function addChildJob<D, R, N extends string>(queue: EchoQueue<Envelope>, parent: ParentOption, name: N, data: D, opts: JobsOptions): Promise<Job<D, R, N>> {
  const existing = opts.jobId === undefined ? undefined : await queue.getJobByKey(keyOfJobId(opts.jobId));
  if (existing !== undefined) {
    const held = openEnvelope(existing.payload).p;
    if (held !== undefined && (held.id !== parent.id || held.queueKey !== parent.queue)) throw parentCannotBeReplaced(parent, 'addJob');
    return Job.fromRecord<D, R, N>(queue, existing);
  }
  // BullMQ's refusal of a missing parent comes first, whatever else the job asks.
  const found = await findParent(openBeside(queue), parent, 'addJob');
  if (opts.jobId !== undefined) throw new NotSupportedError('jobId with a parent option', "a child added under a parent takes Echo's id; read it from the answered job");
  const envelope: Envelope = { ...makeEnvelope(name, data, opts), p: found.ref };
  const child = leafUnder(queue.name, envelope, opts);
  const landed = await addUnder(found, child, 'addJob', ({ id }) => `${qualifiedNameOf(queue.name)}:${id}`, opts.removeDependencyOnFailure === true);
  return new Job<D, R, N>(queue, landed.id, envelope);
}
