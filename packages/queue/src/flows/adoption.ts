import { execute, GoneError, InvalidArgumentError, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { getJob } from '../reads/reads.js';
import type { FlowChild, FlowResult } from './flow-shape.js';
import { fanOut } from './fan-out.js';

/**
 * Children join a job of this queue that already exists, from outside it (BullMQ's `parent` job
 * option), as {@link fanOut} lands them. The parent's state is left as it is: a held parent goes on
 * waiting for its new children too; a pending or running one runs, and a step job waits for them
 * with `moveToWaitingChildren`.
 *
 * @throws StateError (`parent missing`, `parent finished`) when the parent is gone, completed or
 *   dead (nothing written); InvalidArgumentError when a same-queue child id already names a job
 *   (nothing written); the flow validation errors of `addFlow`.
 */
export function adoptChildren<T>(ctx: QueueContext<T>, parentId: string, children: readonly FlowChild<T>[]): Promise<FlowResult[]> {
  return fanOut(ctx, parentId, children, (local, remote) => execute(ctx.conn, t.adoptChildren({ queue: ctx.name, parent: parentId, local, remote })));
}

/**
 * A child of this queue leaves its parent (BullMQ's `removeChildDependency`): the parent, in this
 * queue too, counts it down without a result and is released when it waited on no other child;
 * the child runs on as a lone job. Answers false when the job has no parent or has already settled
 * for it (nothing changed).
 *
 * @throws GoneError when the job does not exist; StateError (`parent missing`, `parent in another
 *   queue`, `parent changed` when another call moved it meanwhile) with nothing changed.
 */
export async function detachChild<T>(ctx: QueueContext<T>, childId: string): Promise<boolean> {
  const child = await getJob(ctx, childId);
  if (child === undefined) throw new GoneError();
  if (child.parent === undefined) return false;
  return execute(ctx.conn, t.detachChild({ queue: ctx.name, child: child.id, parent: child.parent.id }));
}

/**
 * Parent `parentId` of this queue stops waiting for `count` open children that left it elsewhere
 * (a child removed in another queue): the take-back of `adopt_children`, which releases a parent
 * that waits on nothing more. Answers the open-child count left.
 *
 * @throws InvalidArgumentError for a count below 1; StateError (`parent missing`, `parent finished`).
 */
export async function forgetChildren<T>(ctx: QueueContext<T>, parentId: string, count: number): Promise<number> {
  if (!Number.isSafeInteger(count) || count < 1) throw new InvalidArgumentError('count', 'must be an integer >= 1');
  const outcome = await execute(ctx.conn, t.adoptChildren({ queue: ctx.name, parent: parentId, local: [], remote: -count }));
  // No local child was given, so no id can be in use.
  return outcome === 'duplicate' ? 0 : outcome.open;
}
