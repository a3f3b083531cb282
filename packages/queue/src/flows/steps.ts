import { execute, InvalidArgumentError, transitions as t, type HeldJob } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { shapeFlow, type FlowChild, type FlowResult } from './flow-shape.js';
import { landCounted, result } from './flows.js';
import { givenIds } from './flow-retry.js';

/**
 * A running job adds children to itself (a step job's fan-out). The children are validated as a
 * flow under the job before any wire I/O. Leaf children in the job's own queue land with the count
 * in one fenced script; children in other queues, or with children of their own, land after it,
 * node by node, their count already taken (so a fast child can never release the job too soon).
 * A child that did not land (a duplicate id, or a failure on the way) has its count taken back.
 * The job stays active: it waits only when it calls {@link waitForChildren}.
 *
 * @throws StaleError when the job's lease was lost; InvalidArgumentError when a same-queue child id
 * already names a job (nothing was added); the flow validation errors of `addFlow`.
 */
export async function addChildren<T>(ctx: QueueContext<T>, job: HeldJob, children: readonly FlowChild<T>[]): Promise<FlowResult[]> {
  const root = shapeFlow(ctx.name, { parent: { payload: undefined as T, id: job.id }, children });
  const encode = (payload: unknown): string => ctx.codec.encode(payload as T);
  const local = root.children.filter((c) => c.children.length === 0 && c.queue === ctx.name);
  const remote = root.children.filter((c) => !local.includes(c));
  const verdict = await execute(
    ctx.conn,
    t.addChildren({
      queue: ctx.name,
      job,
      local: local.map((c) => ({ id: c.id, payload: encode(c.payload), policy: c.policy })),
      remote: remote.length,
    }),
  );
  if (verdict === 'duplicate') throw new InvalidArgumentError('children', 'a child id already names a job in this queue; nothing was added');
  const given = givenIds(children);
  const { missing, failure } = await landCounted(ctx, remote, { id: root.id, queue: ctx.name }, encode, given);
  if (missing > 0) await execute(ctx.conn, t.addChildren({ queue: ctx.name, job, local: [], remote: -missing }));
  if (failure) throw failure.error;
  return root.children.map(result);
}

/**
 * Moves a running job to `awaiting_children` while it has open children: its lease is given back
 * and the fan-in of its last child puts it back in pending (at its priority), where its handler
 * runs again. Answers the open-child count it now waits on, or 0 when none is open (nothing
 * changed: the job is still this holder's, and its handler goes on).
 *
 * @throws StaleError when the lease was lost; StateError for a lane job (the fan-in releases to
 * flat pending, which would take it off its lane).
 */
export async function waitForChildren<T>(ctx: QueueContext<T>, job: HeldJob): Promise<number> {
  return execute(ctx.conn, t.waitChildren({ queue: ctx.name, job }));
}
