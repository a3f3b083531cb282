import { execute, GoneError, InvalidArgumentError, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { getJob } from '../reads/reads.js';
import { shapeFlow, type FlowChild, type FlowResult } from './flow-shape.js';
import { landCounted, result } from './flows.js';
import { givenIds } from './flow-retry.js';

/**
 * Children join a job of this queue that already exists, from outside it (BullMQ's `parent` job
 * option): validated as a flow under the parent before any wire I/O. Leaf children in the
 * parent's queue land with the count in one script; children in other queues, or with children of
 * their own, land after it, node by node, their count already taken (so a fast child can never
 * release the parent too soon). A child that did not land has its count taken back. The parent's
 * state is left as it is: a held parent goes on waiting for its new children too; a pending or
 * running one runs, and a step job waits for them with `moveToWaitingChildren`.
 *
 * @throws StateError (`parent missing`, `parent finished`) when the parent is gone, completed or
 *   dead (nothing written); InvalidArgumentError when a same-queue child id already names a job
 *   (nothing written); the flow validation errors of `addFlow`.
 */
export async function adoptChildren<T>(ctx: QueueContext<T>, parentId: string, children: readonly FlowChild<T>[]): Promise<FlowResult[]> {
  const root = shapeFlow(ctx.name, { parent: { payload: undefined as T, id: parentId }, children });
  const encode = (payload: unknown): string => ctx.codec.encode(payload as T);
  const local = root.children.filter((c) => c.children.length === 0 && c.queue === ctx.name && c.priority === 0 && c.delayMs === 0);
  const remote = root.children.filter((c) => !local.includes(c));
  const verdict = await execute(
    ctx.conn,
    t.adoptChildren({ queue: ctx.name, parent: root.id, local: local.map((c) => ({ id: c.id, payload: encode(c.payload), policy: c.policy })), remote: remote.length }),
  );
  if (verdict === 'duplicate') throw new InvalidArgumentError('children', 'a child id already names a job in this queue; nothing was added');
  const given = givenIds(children);
  const { missing, failure } = await landCounted(ctx, remote, { id: root.id, queue: ctx.name }, encode, given);
  if (missing > 0) await execute(ctx.conn, t.adoptChildren({ queue: ctx.name, parent: root.id, local: [], remote: -missing }));
  if (failure) throw failure.error;
  return root.children.map(result);
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
