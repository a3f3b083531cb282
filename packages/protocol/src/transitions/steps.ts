import type { JobId } from '../ids/branded.js';
import { scripts } from '../scripts/catalog.js';
import { bind } from './bind.js';
import type { FlowChildInput } from './flows.js';
import { keysOf } from './key-shapes.js';
import type { HeldJob } from './settlement.js';
import { transition, type Transition } from './transition.js';
import { idArg, int, tokenArg, whole } from './values.js';

/** Input of {@link addChildren}. */
export interface AddChildrenInput {
  readonly queue: string;
  /** The running job that becomes the parent; fenced on its token. */
  readonly job: HeldJob;
  /** Leaf children in the job's own queue, landed in the same step. */
  readonly local: readonly FlowChildInput[];
  /**
   * How many children land elsewhere after this call (another queue, or with children of their
   * own); negative to take back the count of children that did not land.
   */
  readonly remote: number;
}

/** What {@link addChildren} answered: the open-child count now, or a local child id already in use. */
export type AddChildrenOutcome = { readonly open: number } | 'duplicate';

/**
 * `add_children` [TS]: a running job adds children to itself, fenced on its token while it is
 * active. Its open-child count grows by every child (local and remote) and its local leaves land
 * pending and linked to it, in one step; nothing is written when a local child id is in use.
 */
export function addChildren(input: AddChildrenInput): Transition<AddChildrenOutcome> {
  const id = idArg(input.job.id);
  const k = keysOf(input.queue);
  const rest: string[] = [];
  for (const c of input.local) rest.push(idArg(c.id), c.payload, c.policy);
  const call = bind(scripts().add_children, {
    scope: { q: input.queue, id },
    args: { id, token: tokenArg(input.job.attempts), remote: String(whole('remote', input.remote, Number.MIN_SAFE_INTEGER)) },
    restKeys: input.local.map((c) => k.job(c.id as JobId)),
    restArgs: rest,
  });
  return transition(call, (reply) => {
    const n = int(reply);
    return n < 0 ? 'duplicate' : { open: n };
  });
}

/**
 * `wait_children` [TS]: a step job with open children leaves active for `awaiting_children`,
 * fenced on its token; its last child's settlement puts it back in pending. Answers how many
 * children it waits on, or 0 when none is open (nothing changed: the handler goes on).
 */
export function waitChildren(input: { readonly queue: string; readonly job: HeldJob }): Transition<number> {
  const id = idArg(input.job.id);
  const call = bind(scripts().wait_children, { scope: { q: input.queue, id }, args: { id, token: tokenArg(input.job.attempts) } });
  return transition(call, int);
}
