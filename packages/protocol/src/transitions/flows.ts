import type { JobId } from '../ids/branded.js';
import type { ParentPolicy } from '../records.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import { assertDedupId } from '../keys/names.js';
import { keysOf } from './key-shapes.js';
import { transition, type Transition } from './transition.js';
import { admitted, idArg, int, jobOptionArgs, whole, type JobOptionFields } from './values.js';

/** One child of a flat flow: its id, encoded payload and failure policy. */
export interface FlowChildInput {
  readonly id: JobId | string;
  readonly payload: string;
  readonly policy: ParentPolicy;
}

/**
 * `enqueue_flow`: lands a parent and its children in one queue in one step (queue.md §11.2);
 * answers how many landed, 0 when the parent or a child already existed (nothing written).
 */
export function enqueueFlow(input: {
  readonly queue: string;
  readonly parent: { readonly id: JobId | string; readonly payload: string };
  readonly children: readonly FlowChildInput[];
}): Transition<number> {
  const pid = idArg(input.parent.id);
  const k = keysOf(input.queue);
  const rest: string[] = [];
  for (const c of input.children) rest.push(idArg(c.id), c.payload, c.policy);
  const call = bind(scripts().enqueue_flow, {
    scope: { q: input.queue, pid },
    args: { pid, ppayload: input.parent.payload, n: String(input.children.length) },
    restKeys: input.children.map((c) => k.job(c.id as JobId)),
    restArgs: rest,
  });
  return transition(call, int);
}

/** Where a held parent reports to when it is itself a child (a grandchild flow). */
export interface FlowLinkInput {
  readonly id: JobId | string;
  /** The link's queue when it differs from the node's own; "" otherwise. */
  readonly queue: string;
  readonly policy: ParentPolicy;
}

/** [TS] A flow node's business key and how long it outlives the node, in ms. */
export interface BusinessKey {
  readonly key: string;
  readonly keepMs: number;
}

/** [TS] The row fields naming a node's business key, so the scripts that end it release the key. */
function keyArgs(key: BusinessKey | undefined): string[] {
  if (key === undefined) return [];
  assertDedupId(key.key);
  return ['dedup', key.key, 'dedup_keep', String(whole('keepMs', key.keepMs, 1))];
}

/**
 * `hold_parent`: admits a parent held in `awaiting_children` until `n` children are done (queue.md
 * §11.3). [TS] `options` are written into its row as enqueue writes them (its priority orders it
 * when its children release it).
 */
export function holdParent(input: {
  readonly queue: string;
  readonly id: JobId | string;
  readonly payload: string;
  readonly children: number;
  readonly link?: FlowLinkInput | undefined;
  readonly options?: JobOptionFields | undefined;
  /** [TS] The node's business key, as enqueue's `key`: a key that names a job answers duplicate. */
  readonly key?: BusinessKey | undefined;
}): Transition<'enqueued' | 'duplicate'> {
  const pid = idArg(input.id);
  const call = bind(scripts().hold_parent, {
    scope: { q: input.queue, pid, ...(input.key === undefined ? {} : { did: input.key.key }) },
    optional: input.key !== undefined,
    args: {
      pid,
      payload: input.payload,
      n: whole('children', input.children, 1),
      link_parent: input.link === undefined ? '' : idArg(input.link.id),
      link_queue: input.link?.queue ?? '',
      link_policy: input.link?.policy ?? '',
    },
    restArgs: [...jobOptionArgs(input.options), ...keyArgs(input.key)],
  });
  return transition(call, admitted);
}

/**
 * `enqueue_flow_child`: admits one child of a held parent (queue.md §11.3). [TS] `options` are
 * written into its row as enqueue writes them; with `delayMs` above 0 it waits in the schedule that
 * long (from the server's now) before it may run.
 */
export function enqueueFlowChild(input: {
  readonly queue: string;
  readonly id: JobId | string;
  readonly payload: string;
  readonly parent: FlowLinkInput;
  readonly options?: JobOptionFields | undefined;
  readonly delayMs?: number | undefined;
  /** [TS] The child's business key, as enqueue's `key`: a key that names a job answers duplicate. */
  readonly key?: BusinessKey | undefined;
}): Transition<'enqueued' | 'duplicate'> {
  const cid = idArg(input.id);
  const call = bind(scripts().enqueue_flow_child, {
    scope: { qc: input.queue, cid, ...(input.key === undefined ? {} : { did: input.key.key }) },
    optional: input.key !== undefined,
    args: {
      cid,
      payload: input.payload,
      pid: idArg(input.parent.id),
      pqueue: input.parent.queue,
      policy: input.parent.policy,
      delay_ms: whole('delayMs', input.delayMs ?? 0, 0),
    },
    restArgs: [...jobOptionArgs(input.options), ...keyArgs(input.key)],
  });
  return transition(call, admitted);
}

/** `flow_deliver`: records a child's completion on its parent's slot (queue.md §11.5). */
export function flowDeliver(input: {
  readonly parentQueue: string;
  readonly parentId: JobId | string;
  readonly childId: JobId | string;
  readonly result: string;
}): Transition<'applied' | 'duplicate'> {
  const pid = idArg(input.parentId);
  const call = bind(scripts().flow_deliver, { scope: { qp: input.parentQueue, pid }, args: { cid: input.childId, result: input.result, pid } });
  return transition(call, (reply) => (int(reply) === 1 ? 'applied' : 'duplicate'));
}

/**
 * `flow_rejoin` [TS]: a child that settled for its parent runs again; its outcome on the parent is
 * taken back and it counts as open again. `false` when the parent is gone or finished, or held no
 * outcome of the child (nothing written).
 */
export function flowRejoin(input: { readonly parentQueue: string; readonly parentId: JobId | string; readonly childId: JobId | string }): Transition<boolean> {
  const pid = idArg(input.parentId);
  const call = bind(scripts().flow_rejoin, { scope: { qp: input.parentQueue, pid }, args: { cid: input.childId, pid } });
  return transition(call, (reply) => int(reply) === 1);
}

/** The verdict of a failure delivery: nothing written, applied, or applied and the parent died. */
export type FailDelivery = 'duplicate' | 'applied' | 'parent_dead';

/** `flow_fail_deliver`: records a child's failure on its parent's slot under the child's policy (queue.md §11.6). */
export function flowFailDeliver(input: {
  readonly parentQueue: string;
  readonly parentId: JobId | string;
  readonly childId: JobId | string;
  readonly error: string;
  readonly policy: ParentPolicy;
  /** [TS] The child's queue, named in the failure text of a parent it kills. */
  readonly childQueue?: string;
}): Transition<FailDelivery> {
  const pid = idArg(input.parentId);
  const call = bind(scripts().flow_fail_deliver, {
    scope: { qp: input.parentQueue, pid },
    args: { cid: input.childId, error: input.error, policy: input.policy, pid, cqueue: input.childQueue ?? '' },
  });
  return transition(call, (reply) => {
    const n = int(reply);
    return n === 2 ? 'parent_dead' : n === 1 ? 'applied' : 'duplicate';
  });
}

/**
 * `flow_reemit` [TS]: the host step of queue.md §11.7. When node `id` of `queue` is dead and has a
 * parent, a fail-entry for that parent goes into `queue`'s outbox; answers whether one did.
 */
export function flowReemit(input: { readonly queue: string; readonly id: JobId | string; readonly error: string }): Transition<boolean> {
  const id = idArg(input.id);
  const call = bind(scripts().flow_reemit, { scope: { q: input.queue, id }, args: { id, queue: keysOf(input.queue).queue, error: input.error } });
  return transition(call, (reply) => int(reply) === 1);
}

/** `flow_outbox_trim` [TS]: drops the `delivered` entries a sweep delivered from the outbox head; answers how many are left. */
export function flowOutboxTrim(input: { readonly queue: string; readonly delivered: number }): Transition<number> {
  return transition(bind(scripts().flow_outbox_trim, { scope: { q: input.queue }, args: { delivered: whole('delivered', input.delivered, 0) } }), int);
}
