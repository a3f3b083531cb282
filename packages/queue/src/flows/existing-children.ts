import { execute, queueKeys, reads, transitions as t, type JobId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import type { FlowNode } from './flow-shape.js';
import { collision } from './flow-retry.js';
import { getJob } from '../reads/reads.js';

/** Nodes of a flow whose business key names a job already there, each with that job's id. */
export type Linked = ReadonlyMap<FlowNode, JobId>;

/**
 * [TS] The nodes of a flow whose business key already names a job, read before anything is
 * written. A child of its parent's own queue, given no children of its own, is that job: it joins
 * the parent as it is (BullMQ links a child named by the `jobId` of a job added before, and a
 * completed one counts as done at once). Any other such node would not land and its parent would
 * wait for it for ever: the flow is refused.
 *
 * @throws InvalidArgumentError (`flow`) for a taken key on the root, on a node with children, on a
 *   child of another queue than its parent's, or naming a job that is gone or has a parent (nothing
 *   written).
 */
export async function existingChildren<T>(ctx: QueueContext<T>, root: FlowNode): Promise<Linked> {
  const linked = new Map<FlowNode, JobId>();
  const walk = async (node: FlowNode, parent: FlowNode | undefined): Promise<void> => {
    if (node.key !== undefined) {
      const holder = await reads.sendRead(ctx.conn, reads.queue.dedup({ keys: queueKeys(node.queue), dedupId: node.key }));
      if (holder !== undefined) {
        if (parent?.queue !== node.queue || node.children.length > 0) throw collision(`key ${node.key} already names job ${holder} in ${node.queue}`);
        const job = await getJob({ ...ctx, name: node.queue, keys: queueKeys(node.queue) }, holder);
        if (job === undefined) throw collision(`key ${node.key} names job ${holder} in ${node.queue}, which is gone`);
        if (job.parent !== undefined) throw collision(`key ${node.key} names job ${holder} in ${node.queue}, which has another parent`);
        linked.set(node, holder);
      }
    }
    for (const child of node.children) await walk(child, node);
  };
  await walk(root, undefined);
  return linked;
}

/**
 * Links the existing job of `node` to its parent, just held with it in its count.
 * @throws InvalidArgumentError (`flow`) when the job is gone or reports to another parent; the
 *   parent stays held (as for any node that does not land).
 */
export async function linkExisting<T>(ctx: QueueContext<T>, node: FlowNode, holder: JobId, parentId: JobId | string): Promise<void> {
  const verdict = await execute(ctx.conn, t.linkChild({ queue: node.queue, child: holder, parent: parentId, policy: node.policy }));
  if (verdict === 'refused') throw collision(`key ${node.key ?? ''} names job ${holder} in ${node.queue}, which is gone or has another parent`);
}
