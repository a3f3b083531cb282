import type { JobId } from '../ids/branded.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import type { FlowChildInput } from './flows.js';
import { keysOf } from './key-shapes.js';
import { transition, type Transition } from './transition.js';
import { idArg, int, whole } from './values.js';

/** Input of {@link adoptChildren}. */
export interface AdoptChildrenInput {
  /** The parent's queue. */
  readonly queue: string;
  /** The parent: any job of `queue` that has not finished. */
  readonly parent: JobId | string;
  /** Leaf children in the parent's own queue, landed in the same step. */
  readonly local: readonly FlowChildInput[];
  /**
   * How many children land elsewhere after this call (another queue, or with children of their
   * own); negative to take back the count of children that did not land.
   */
  readonly remote: number;
}

/** What {@link adoptChildren} answered: the parent's open-child count now, or a local child id already in use. */
export type AdoptChildrenOutcome = { readonly open: number } | 'duplicate';

/**
 * `adopt_children` [TS]: children join a parent that already exists, from outside it (BullMQ's
 * `parent` job option). Its open-child count grows by every child (local and remote) and its local
 * leaves land pending and linked to it, in one step; its state is left as it is. Nothing is
 * written when a local child id is in use. A take-back (negative `remote`) releases a parent that
 * waits on nothing more.
 *
 * @throws StateError (`parent missing`, `parent finished`) when the parent is gone or has completed
 *   or died; nothing is written.
 */
export function adoptChildren(input: AdoptChildrenInput): Transition<AdoptChildrenOutcome> {
  const pid = idArg(input.parent);
  const k = keysOf(input.queue);
  const rest: string[] = [];
  for (const c of input.local) rest.push(idArg(c.id), c.payload, c.policy);
  const call = bind(scripts().adopt_children, {
    scope: { q: input.queue, pid },
    args: { pid, remote: String(whole('remote', input.remote, Number.MIN_SAFE_INTEGER)) },
    restKeys: input.local.map((c) => k.job(c.id as JobId)),
    restArgs: rest,
  });
  return transition(call, (reply) => {
    const n = int(reply);
    return n < 0 ? 'duplicate' : { open: n };
  });
}

/**
 * `detach_child` [TS]: a child leaves its parent in the same queue (BullMQ's
 * `removeChildDependency`): its link goes and the parent counts it down without recording a
 * result, released when it waited on no other child. Answers false when the child had no parent
 * or had already settled for it (nothing written).
 *
 * @throws GoneError when the child is gone; StateError (`parent missing`, `parent changed`,
 *   `parent in another queue`) with nothing written.
 */
export function detachChild(input: { readonly queue: string; readonly child: JobId | string; readonly parent: JobId | string }): Transition<boolean> {
  const cid = idArg(input.child);
  const pid = idArg(input.parent);
  const call = bind(scripts().detach_child, { scope: { q: input.queue, cid, pid }, args: { cid, pid } });
  return transition(call, (reply) => int(reply) === 1);
}

/** What {@link linkChild} did: linked and still open, linked and counted down (completed), or nothing. */
export type LinkVerdict = 'open' | 'settled' | 'refused';

/**
 * `link_child` [TS]: a job that already exists in the parent's queue becomes the parent's child (a
 * flow node naming it by its business key); `refused` when the job is gone, reports to another
 * parent, or the parent is missing (nothing written).
 */
export function linkChild(input: { readonly queue: string; readonly child: JobId | string; readonly parent: JobId | string; readonly policy: 'fp' | 'id' | 'cp' }): Transition<LinkVerdict> {
  const cid = idArg(input.child);
  const pid = idArg(input.parent);
  const call = bind(scripts().link_child, { scope: { q: input.queue, cid, pid }, args: { cid, pid, policy: input.policy } });
  return transition(call, (reply) => {
    const code = int(reply);
    return code === 1 ? 'open' : code === 2 ? 'settled' : 'refused';
  });
}
