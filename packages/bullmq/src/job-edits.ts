import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import type { Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope, type StoredOptions } from './envelope.js';
import { asBullMQError, BullMQInputError, missingJob } from './errors.js';
import { checkKeepLogs, MAX_PRIORITY } from './job-options.js';

/**
 * The edits of a stored job that rewrite its envelope or its log: BullMQ's `updateData`,
 * `changePriority` and `clearLogs`. Each reads the stored envelope rather than the `Job` object's
 * copy, so an edit made elsewhere since the job was read is kept.
 */

/** What `job.changePriority` takes, as BullMQ names it. */
export interface ChangePriorityOpts {
  /** The new priority: 1 (first) to 2,097,151; 0 or absent for none (before every prioritized job). */
  readonly priority?: number;
  /** Ahead of the jobs waiting at the new priority, instead of after them. */
  readonly lifo?: boolean;
}

const checkPriorityOpts = strictOptions('changePriority options', { known: ['priority', 'lifo'] });

/** The stored envelope of a job, or BullMQ's `Missing key` refusal of `command`. */
async function storedEnvelope(queue: EchoQueue<Envelope>, echoId: string, jobId: string, command: string): Promise<Envelope> {
  const record = await queue.getJob(echoId);
  if (!record) throw missingJob(jobId, command);
  return openEnvelope(record.payload);
}

/** Replaces a job's data, keeping the rest of its envelope. */
export async function updateJobData(queue: EchoQueue<Envelope>, echoId: string, jobId: string, data: unknown): Promise<void> {
  const envelope = await storedEnvelope(queue, echoId, jobId, 'updateData');
  await queue.updateData(echoId, { ...envelope, d: data });
}

/**
 * Counts a step move in the job's envelope (see `Envelope.s`), while its processor still holds it;
 * `by` -1 takes back a step counted for a move that did not happen.
 */
export async function countStep(queue: EchoQueue<Envelope>, echoId: string, jobId: string, command: string, by: 1 | -1 = 1): Promise<void> {
  const envelope = await storedEnvelope(queue, echoId, jobId, command);
  await queue.updateData(echoId, { ...envelope, s: (envelope.s ?? 0) + by });
}

/**
 * Gives a job a new BullMQ priority; answers it. A waiting job moves at once (after the jobs
 * waiting at that priority, or ahead of them with `lifo`); any other job keeps its place and takes
 * the priority with it, as BullMQ does. The envelope's copy (what `job.opts.priority` and the
 * getters read) is rewritten in the same step as Echo's priority.
 */
export async function changeJobPriority(queue: EchoQueue<Envelope>, echoId: string, jobId: string, opts: ChangePriorityOpts): Promise<number> {
  checkPriorityOpts(opts);
  const priority = opts.priority ?? 0;
  if (typeof priority !== 'number' || !Number.isFinite(priority) || priority < 0) throw new InvalidArgumentError('priority', `must be an integer from 0 to ${String(MAX_PRIORITY)}`);
  if (Math.trunc(priority) !== priority) throw new BullMQInputError('priority', 'Priority should not be float');
  if (priority > MAX_PRIORITY) throw new BullMQInputError('priority', `Priority should be between 0 and ${String(MAX_PRIORITY)}`);
  if (opts.lifo !== undefined && typeof opts.lifo !== 'boolean') throw new InvalidArgumentError('lifo', 'must be a boolean');
  const envelope = await storedEnvelope(queue, echoId, jobId, 'changePriority');
  const { priority: _before, ...kept } = envelope.o ?? {};
  const o: StoredOptions = priority > 0 ? { ...kept, priority } : kept;
  const { o: _old, ...rest } = envelope;
  const next: Envelope = Object.keys(o).length === 0 ? rest : { ...rest, o };
  // BullMQ's priority p runs before p + 1; Echo's runs higher first, so p becomes -p (as on add).
  await queue.changePriority(echoId, priority > 0 ? -priority : 0, { lifo: opts.lifo === true, payload: next }).catch((error: unknown) => {
    throw asBullMQError(error, jobId, 'changePriority', 'waiting');
  });
  return priority;
}

/** Keeps a job's newest `keepLogs` log lines; without a count (or 0) deletes its log, as BullMQ's `clearLogs`. */
export async function clearJobLogs(queue: EchoQueue<Envelope>, echoId: string, jobId: string, keepLogs?: number): Promise<void> {
  checkKeepLogs(keepLogs);
  await queue.clearLogs(echoId, keepLogs ?? 0).catch((error: unknown) => {
    throw asBullMQError(error, jobId, 'clearLogs', 'any');
  });
}
