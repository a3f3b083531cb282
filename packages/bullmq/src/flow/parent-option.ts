import { InvalidArgumentError, StateError, mintId } from '@echo/protocol/queue';
import type { FlowChild, FlowResult, Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope } from '../envelope.js';
import { JobStateError } from '../errors.js';
import type { JobsOptions } from '../job-options.js';
import { recordOfJobId } from '../job-lookup.js';
import type { OpenQueue } from './get-flow.js';
import { noteChildrenAdded } from './step-parents.js';

/** BullMQ's `parent` job option: the parent's id and its queue's qualified name (`<prefix>:<queue>`). */
export interface ParentOption {
  readonly id: string;
  readonly queue: string;
}

/** A parent found: its Echo queue, its Echo id, and where its children report (their envelope's `p`). */
export interface FoundParent {
  readonly queue: EchoQueue<Envelope>;
  readonly echoId: string;
  readonly ref: { readonly id: string; readonly queueKey: string };
}

/**
 * Finds the job a `parent` option names, in its own queue (under its own prefix); refuses with
 * BullMQ's text when it does not exist.
 */
export async function findParent(open: OpenQueue, parent: ParentOption, command: string): Promise<FoundParent> {
  const at = parent.queue.lastIndexOf(':');
  if (at <= 0) throw new InvalidArgumentError('parent.queue', "must be the parent queue's qualified name, <prefix>:<queue>");
  const queue = await open(parent.queue.slice(at + 1), parent.queue.slice(0, at));
  const record = await recordOfJobId(queue, parent.id);
  if (record === undefined) throw missingParent(parent, command);
  return { queue, echoId: record.id, ref: { id: parent.id, queueKey: parent.queue } };
}

/**
 * Lands `child` (a leaf, or a node with children of its own) under a parent found by
 * {@link findParent}: the parent's open-child count grows by it in the same step that lands it (a
 * child in the parent's queue) or before it lands (elsewhere), and its BullMQ key `childKey` (its
 * `<prefix>:<queue>:<id>`) joins those the parent's envelope lists (and, when its failure removes the
 * dependency, `forgotten`, those it forgets). Echo's refusals become BullMQ's texts.
 */
export async function addUnder(parent: FoundParent, child: FlowChild<Envelope>, command: string, childKey: (landed: FlowResult) => string, forgotten = false): Promise<FlowResult> {
  try {
    const [landed] = await parent.queue.addChildren(parent.echoId, [child]);
    if (landed === undefined) throw new InvalidArgumentError('parent', 'the child did not land');
    noteChildrenAdded(parent.echoId);
    await recordChild(parent, childKey(landed), landed.id, forgotten);
    return landed;
  } catch (error) {
    const option = { id: parent.ref.id, queue: parent.ref.queueKey };
    if (error instanceof StateError && error.detail === 'parent missing') throw missingParent(option, command, error);
    if (error instanceof StateError && error.detail === 'parent finished') {
      throw new JobStateError(parent.ref.id, command, `The parent job ${parent.ref.queueKey}:${parent.ref.id} has already finished. ${command}`, error);
    }
    throw error;
  }
}

/**
 * Lists a child added under an existing parent in the parent's stored envelope, as a flow lists the
 * children it was added with: BullMQ's `getDependencies` and `removeUnprocessedChildren` read them
 * there (Echo keeps only the parent's open-child count). A read then a write: two processes adding
 * children under one parent at the same instant may keep only one of them in the list (the count,
 * which decides when the parent runs, is Echo's and exact).
 */
async function recordChild(parent: FoundParent, key: string, echoId: string, forgotten: boolean): Promise<void> {
  const record = await parent.queue.getJob(parent.echoId);
  if (record === undefined) return;
  const envelope = openEnvelope(record.payload);
  const keys = envelope.k ?? [];
  if (keys.includes(key)) return;
  // `e` pairs each key with its Echo id once one key does not end with it (a `jobId` child).
  const named = envelope.e !== undefined || !key.endsWith(`:${echoId}`);
  const ids = named ? (envelope.e ?? keys.map((k) => k.slice(k.lastIndexOf(':') + 1))) : undefined;
  const forgets = forgotten ? { f: [...(envelope.f ?? []), key] } : {};
  await parent.queue.updateData(parent.echoId, { ...envelope, k: [...keys, key], ...(ids === undefined ? {} : { e: [...ids, echoId] }), ...forgets });
}

/** A child job's spec under a parent: a leaf in `queue` with its failure policy and timing, Echo's id minted. */
export function leafUnder(queue: string, envelope: Envelope, opts: JobsOptions): FlowChild<Envelope> {
  const { priority, delay, failParentOnFailure, continueParentOnFailure } = opts;
  // A forgotten dependency is an ignored one in Echo, left out of the parent's lists by its envelope's `f`.
  const ignoreDependencyOnFailure = opts.removeDependencyOnFailure === true ? true : opts.ignoreDependencyOnFailure;
  return {
    payload: envelope,
    id: mintId('JOB'),
    queue,
    ...(priority !== undefined && priority > 0 ? { priority: -priority } : {}),
    ...(delay !== undefined && delay > 0 ? { delayMs: Math.round(delay) } : {}),
    ...(failParentOnFailure === undefined ? {} : { failParentOnFailure }),
    ...(ignoreDependencyOnFailure === undefined ? {} : { ignoreDependencyOnFailure }),
    ...(continueParentOnFailure === undefined ? {} : { continueParentOnFailure }),
  };
}

/** BullMQ's text for a parent that does not exist. */
export function missingParent(parent: ParentOption, command: string, cause?: unknown): JobStateError {
  return new JobStateError(parent.id, command, `Missing key for parent job ${parent.queue}:${parent.id}. ${command}`, cause);
}

/** BullMQ's text for a job that already has another parent. */
export function parentCannotBeReplaced(parent: ParentOption, command: string): JobStateError {
  return new JobStateError(parent.id, command, `The parent job ${parent.queue}:${parent.id} cannot be replaced. ${command}`);
}
