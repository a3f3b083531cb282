import { GoneError, LockedError, StateError, strictOptions } from '@echo/protocol/queue';
import { Queue as EchoQueue, type JobRecord } from '@echo/queue';
import { openEnvelope, type Envelope } from '../envelope.js';
import { JobStateError } from '../errors.js';
import { recordOfJobId } from '../job-lookup.js';
import { childrenValues, ignoredFailures, storedEnvelope } from './dependencies.js';
import type { OpenQueue } from './get-flow.js';

/** `job.remove(opts)`'s options, as BullMQ names them. */
export interface RemoveOpts {
  /** Remove the job's children (and theirs) with it; default true. */
  readonly removeChildren?: boolean;
}

const checkRemoveOpts = strictOptions('remove options', { known: ['removeChildren'] });

/** One job of the tree to remove. */
interface TreeNode {
  readonly queue: EchoQueue<Envelope>;
  readonly record: JobRecord<Envelope>;
}

/** Open states: the job still counts among its parent's open children. */
const OPEN = new Set(['pending', 'scheduled', 'awaiting_children']);

/**
 * BullMQ's `job.remove()`: the job goes with its children, at every depth, whatever their state
 * (`removeChildren: false` leaves them, to run as lone jobs). Nothing is removed when a worker holds
 * any job of the tree (BullMQ's `could not be removed because it is locked` text). A job still open
 * for a parent stops counting there: Echo's remove counts down a parent of the job's own queue in
 * the same step, and the parent of another queue is counted down right after, on its own slot.
 */
export async function removeTree(open: OpenQueue, queue: EchoQueue<Envelope>, echoId: string, jobId: string, opts: RemoveOpts): Promise<void> {
  checkRemoveOpts(opts);
  await removeNodes(open, queue, echoId, jobId, opts.removeChildren !== false, false);
}

/**
 * Removes the job and, with `children`, its descendants. With `openOnly` (BullMQ's
 * `removeUnprocessedChildren`, which ignores locked and processed jobs) only the open jobs of the
 * tree go and a running one is left where it is; otherwise a running job anywhere refuses it all.
 */
async function removeNodes(open: OpenQueue, queue: EchoQueue<Envelope>, echoId: string, jobId: string, children: boolean, openOnly: boolean): Promise<void> {
  const root = await queue.getJob(echoId);
  if (root === undefined) return;
  const tree: TreeNode[] = [{ queue, record: root }];
  if (children) await collect(open, { queue, record: root }, tree);
  const states = await Promise.all(tree.map((node) => node.queue.getState(node.record.id)));
  if (!openOnly && states.includes('active')) throw lockedTree(jobId);
  if (openOnly && !OPEN.has(states[0] ?? '')) return;
  // The root first: its children then no longer count for it, so none releases it meanwhile.
  await removeOne(queue, root, jobId);
  const link = root.parent;
  if (link !== undefined && link.queue !== queue.name && OPEN.has(states[0] ?? '')) {
    const parentQueue = await EchoQueue.open<Envelope>(link.queue, { connection: queue.connection });
    await parentQueue.forgetChildren(link.id, 1).catch((error: unknown) => {
      // A parent that is gone or finished waits on nothing: there is no count to take back.
      if (!(error instanceof StateError)) throw error;
    });
  }
  for (const [i, node] of tree.entries()) {
    if (i > 0 && (!openOnly || OPEN.has(states[i] ?? ''))) await removeOne(node.queue, node.record, jobId);
  }
}

/** Removes one job of the tree; one already gone is left as it is. */
async function removeOne(queue: EchoQueue<Envelope>, record: JobRecord<Envelope>, jobId: string): Promise<void> {
  try {
    await queue.remove(record.id, { held: true });
  } catch (error) {
    if (error instanceof GoneError) return;
    if (error instanceof LockedError) throw lockedTree(jobId);
    throw error;
  }
}

/**
 * Every descendant of `node`, parents before their children, read through BullMQ's child keys:
 * those its flow recorded, and those children added under it later left (completed or ignored).
 */
async function collect(open: OpenQueue, node: TreeNode, into: TreeNode[]): Promise<void> {
  const envelope = openEnvelope(node.record.payload);
  const [processed, ignored] = await Promise.all([childrenValues(node.queue, node.record.id, envelope), ignoredFailures(node.queue, node.record.id, envelope, true)]);
  const keys = [...new Set([...(envelope.k ?? []), ...Object.keys(processed), ...Object.keys(ignored)])];
  for (const key of keys) {
    // BullMQ's child key is `<prefix>:<queue>:<id>`; a prefix may itself hold a `:`.
    const idAt = key.lastIndexOf(':');
    const queueAt = key.lastIndexOf(':', idAt - 1);
    const queue = await open(key.slice(queueAt + 1, idAt), key.slice(0, queueAt));
    const record = await recordOfJobId(queue, key.slice(idAt + 1));
    if (record === undefined || into.some((n) => n.record.id === record.id && n.queue.name === queue.name)) continue;
    const child = { queue, record };
    into.push(child);
    await collect(open, child, into);
  }
}

/**
 * BullMQ's `job.removeUnprocessedChildren()`: every child of the job still open (waiting, delayed,
 * or waiting for children of its own) goes, with its own open children; a child that is running,
 * completed or failed stays, and so does a running job under an open child.
 */
export async function removeUnprocessedChildren(open: OpenQueue, queue: EchoQueue<Envelope>, echoId: string, given: Envelope): Promise<void> {
  const envelope = await storedEnvelope(queue, echoId, given);
  const processed = await childrenValues(queue, echoId, envelope);
  for (const key of envelope.k ?? []) {
    if (key in processed) continue;
    const idAt = key.lastIndexOf(':');
    const queueAt = key.lastIndexOf(':', idAt - 1);
    const childQueue = await open(key.slice(queueAt + 1, idAt), key.slice(0, queueAt));
    const childId = key.slice(idAt + 1);
    const record = await recordOfJobId(childQueue, childId);
    // A running child stays, and so does each running job below an open one (BullMQ's ignoreLocked).
    if (record !== undefined) await removeNodes(open, childQueue, record.id, childId, true, true);
  }
}

function lockedTree(jobId: string): JobStateError {
  return new JobStateError(jobId, 'removeJob', `Job ${jobId} could not be removed because it is locked by another worker`);
}
