import { assertBrandedId, execute, queueKeys, reads, transitions as t, type JobId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { isAtomic, shapeFlow, type FlowNode, type FlowResult, type FlowSpec } from './flow-shape.js';
import { checkRetryChildren, collision, everyNodeExists, givenIds } from './flow-retry.js';
import { DEFAULT_KEY_RETENTION_MS } from '../producer/admission.js';
import { existingChildren, linkExisting, type Linked } from './existing-children.js';

export function result(node: FlowNode, linked: Linked = new Map()): FlowResult {
  return { id: linked.get(node) ?? node.id, queue: node.queue, children: node.children.map((child) => result(child, linked)) };
}

/**
 * Adds a flow (queue.md §11): the parent is held in `awaiting_children` until every child is done,
 * then released to pending as an ordinary job. A flat flow in one queue lands in one atomic script;
 * a flow across queues or with grandchildren lands node by node, parents first, and fails closed:
 * on the first node that does not land the call throws and the parent stays held (retry by id; the
 * scripts answer duplicate for what already landed). Every id the answer names is a job's.
 *
 * @throws InvalidArgumentError (`flow`) when an id already names a job and the call is not a retry
 *   of that flow: a same-queue flat flow whose other nodes do not exist (nothing written), or a held
 *   node whose children were not all given ids (nothing more written); [TS] when a node's business
 *   key already names a job (nothing written), except a childless child of its parent's queue: that
 *   job becomes the parent's child (see {@link existingChildren}), and the answer names it.
 */
export async function addFlow<T>(ctx: QueueContext<T>, spec: FlowSpec<T>): Promise<FlowResult> {
  const root = shapeFlow(ctx.name, spec);
  const encode = (payload: unknown): string => ctx.codec.encode(payload as T);
  if (isAtomic(root)) {
    const children = root.children.map((c) => ({ id: c.id, payload: encode(c.payload), policy: c.policy }));
    const landed = await execute(ctx.conn, t.enqueueFlow({ queue: ctx.name, parent: { id: root.id, payload: encode(root.payload) }, children }));
    // Nothing was written: a retry of this flow is answered as it landed, but an answer naming a
    // minted id (or any id no job holds) would send the caller after jobs that do not exist.
    if (landed === 0 && !(await everyNodeExists(ctx, root))) throw collision('the parent or a child id already names a job and the other nodes do not exist');
    return result(root);
  }
  const linked = await existingChildren(ctx, root);
  await land(ctx, root, undefined, encode, givenIds(spec.children), linked);
  return result(root, linked);
}

/** Where a node reports to: its parent's id and queue. */
export interface ParentRef {
  readonly id: JobId;
  readonly queue: string;
}

/**
 * Lands one node and, depth first, its subtree: a node with children is held, a leaf enqueued,
 * linked to `parent`. Answers the node's own verdict (a duplicate node's subtree is landed anyway:
 * the scripts answer duplicate for what exists, so a retry by id completes a half-landed flow; a
 * duplicate node whose children are not all in `given`, the ids the caller gave, is refused).
 */
export async function land<T>(ctx: QueueContext<T>, node: FlowNode, parent: ParentRef | undefined, encode: (p: unknown) => string, given: ReadonlySet<string>, linked: Linked = new Map()): Promise<'enqueued' | 'duplicate'> {
  const holder = linked.get(node);
  if (holder !== undefined && parent) {
    await linkExisting(ctx, node, holder, parent.id);
    return 'enqueued';
  }
  const parentQueue = parent && parent.queue !== node.queue ? parent.queue : '';
  const link = parent ? { id: parent.id, queue: parentQueue, policy: node.policy } : undefined;
  if (node.children.length > 0) {
    const options = node.priority === 0 ? undefined : { priority: node.priority };
    const verdict = await execute(ctx.conn, t.holdParent({ queue: node.queue, id: node.id, payload: encode(node.payload), children: node.children.length, link, options, key: keyOf(node) }));
    if (verdict === 'duplicate') checkRetryChildren(node, given);
    for (const child of node.children) await land(ctx, child, node, encode, given, linked);
    return verdict;
  }
  if (!link) return 'duplicate';
  return execute(ctx.conn, t.enqueueFlowChild({ queue: node.queue, id: node.id, payload: encode(node.payload), parent: link, ...(node.priority === 0 ? {} : { options: { priority: node.priority } }), delayMs: node.delayMs, key: keyOf(node) }));
}

/** A node's business key, held for the default window after it ends, as `enqueue`'s `key`. */
function keyOf(node: FlowNode): t.BusinessKey | undefined {
  return node.key === undefined ? undefined : { key: node.key, keepMs: DEFAULT_KEY_RETENTION_MS };
}

/** What {@link landCounted} left: how many nodes did not land, and the failure that stopped it, if any. */
export interface CountedLanding {
  readonly missing: number;
  readonly failure?: { readonly error: unknown };
}

/**
 * Lands `nodes` under `parent` node by node, their count already taken on the parent: a node that
 * answers duplicate, and every node from a failure on, did not land, so the caller takes their
 * count back (and rethrows the failure).
 */
export async function landCounted<T>(ctx: QueueContext<T>, nodes: readonly FlowNode[], parent: ParentRef, encode: (p: unknown) => string, given: ReadonlySet<string>): Promise<CountedLanding> {
  let missing = 0;
  for (const [i, node] of nodes.entries()) {
    try {
      if ((await land(ctx, node, parent, encode, given)) === 'duplicate') missing++;
    } catch (error) {
      return { missing: missing + nodes.length - i, failure: { error } };
    }
  }
  return { missing };
}

/**
 * Adds many flows (queue.md §11.8). Every flow is validated before any wire I/O; each then lands on
 * its own, and one that fails to land is left out of the answer (its parent stays held) without
 * stopping the others. `onError` hears why.
 */
export async function addFlowBulk<T>(ctx: QueueContext<T>, specs: readonly FlowSpec<T>[], onError?: (index: number, error: unknown) => void): Promise<FlowResult[]> {
  for (const spec of specs) shapeFlow(ctx.name, spec);
  const landed: FlowResult[] = [];
  for (const [index, spec] of specs.entries()) {
    try {
      landed.push(await addFlow(ctx, spec));
    } catch (error) {
      onError?.(index, error);
    }
  }
  return landed;
}

/** The results the parent's completed children left, child id → result (its own id when none). */
export async function childrenValues<T>(ctx: QueueContext<T>, parentId: JobId | string): Promise<Record<string, string>> {
  return reads.sendRead(ctx.conn, reads.queue.childrenValues(parentOf(ctx, parentId)));
}

/** The failures of children whose death the parent ignored, child id → error. */
export async function ignoredFailures<T>(ctx: QueueContext<T>, parentId: JobId | string): Promise<Record<string, string>> {
  return reads.sendRead(ctx.conn, reads.queue.ignoredFailures(parentOf(ctx, parentId)));
}

/** How many of the parent's children are still open (an absent counter reads 0). */
export async function dependencies<T>(ctx: QueueContext<T>, parentId: JobId | string): Promise<number> {
  return reads.sendRead(ctx.conn, reads.queue.openChildren(parentOf(ctx, parentId)));
}

/** The input of a read about a flow parent. @throws MalformedIdError for a malformed id. */
function parentOf<T>(ctx: QueueContext<T>, parentId: string): reads.queue.ParentInput {
  assertBrandedId(parentId);
  return { keys: ctx.keys, parent: parentId };
}

/**
 * When a node died failing its parent and has a parent of its own, the failure climbs one level:
 * a fail-entry goes into the node's own queue outbox (queue.md §11.7), delivered by the next sweep.
 */
export async function reemitIfDead<T>(ctx: QueueContext<T>, queue: string, nodeId: JobId, error: string): Promise<boolean> {
  return execute(ctx.conn, t.flowReemit({ queue, id: nodeId, error }));
}

/** What one outbox sweep did. */
export interface OutboxSweep {
  readonly delivered: number;
  /** An entry that does not parse blocks the outbox until an operator removes it. */
  readonly poisoned: boolean;
  /** Why delivery stopped early, when a delivery failed; the next sweep tries again. */
  readonly error?: unknown;
}

/**
 * Delivers this queue's cross-queue flow signals in order on their parents' slots, then trims what
 * was delivered (queue.md §11.5). Delivery comes before removal, so a crash can only redeliver; the
 * scripts' HSETNX guards make redelivery harmless. Stops at a malformed entry or a failed delivery.
 * One sweep moves a failure one level: a node that died of it reports through its own queue's
 * outbox, delivered by that queue's next sweep (queue.md §11.7).
 */
export async function deliverOutbox<T>(ctx: QueueContext<T>, batch = 100): Promise<OutboxSweep> {
  return (await deliverOnce(ctx, batch)).sweep;
}

/**
 * [TS] {@link deliverOutbox}, then the outboxes of the queues whose nodes died of what it delivered,
 * level by level: a failure climbs a cross-queue tree in one worker tick instead of a tick of each
 * queue per level. The spec's one-level sweep stays {@link deliverOutbox}.
 */
export async function deliverOutboxClimbing<T>(ctx: QueueContext<T>, batch = 100): Promise<OutboxSweep> {
  const { sweep, reemitted } = await deliverOnce(ctx, batch);
  let failure = sweep.error === undefined ? undefined : { error: sweep.error };
  for (const queue of reemitted) {
    const above = await deliverOutboxClimbing({ ...ctx, name: queue, keys: queueKeys(queue) }, batch);
    if (above.error !== undefined && failure === undefined) failure = { error: above.error };
  }
  return failure ? { ...sweep, error: failure.error } : sweep;
}

/** One sweep of this queue's outbox, and the queues whose outbox it gave a re-emitted failure. */
async function deliverOnce<T>(ctx: QueueContext<T>, batch: number): Promise<{ sweep: OutboxSweep; reemitted: ReadonlySet<string> }> {
  const entries = await reads.sendRead(ctx.conn, reads.queue.flowOutbox({ keys: ctx.keys, count: batch }));
  let delivered = 0;
  let poisoned = false;
  let failure: { error: unknown } | undefined;
  const reemitted = new Set<string>();
  for (const entry of entries) {
    if (!entry) {
      poisoned = true;
      break;
    }
    const target = { parentQueue: entry.parentQueue, parentId: entry.parentId, childId: entry.childId };
    try {
      if (entry.kind === 'complete') {
        await execute(ctx.conn, t.flowDeliver({ ...target, result: entry.result }));
      } else {
        const verdict = await execute(ctx.conn, t.flowFailDeliver({ ...target, error: entry.error, policy: entry.policy, childQueue: ctx.name }));
        if (verdict === 'parent_dead' && (await reemitIfDead(ctx, entry.parentQueue, entry.parentId, entry.error))) reemitted.add(entry.parentQueue);
      }
    } catch (error) {
      failure = { error };
      break;
    }
    delivered++;
  }
  if (delivered > 0) await execute(ctx.conn, t.flowOutboxTrim({ queue: ctx.name, delivered }));
  return { sweep: failure ? { delivered, poisoned, error: failure.error } : { delivered, poisoned }, reemitted };
}
