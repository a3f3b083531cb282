import { execute, transitions as t, type HeldJob } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import type { FlowChild, FlowResult } from './flow-shape.js';
import { fanOut } from './fan-out.js';

/**
 * A running job adds children to itself (a step job's fan-out), as {@link fanOut} lands them, the
 * count in one script fenced on the job's token. The job stays active: it waits only when it calls
 * {@link waitForChildren}.
 *
 * @throws StaleError when the job's lease was lost; InvalidArgumentError when a same-queue child id
 * already names a job (nothing was added); the flow validation errors of `addFlow`.
 */
export function addChildren<T>(ctx: QueueContext<T>, job: HeldJob, children: readonly FlowChild<T>[]): Promise<FlowResult[]> {
  return fanOut(ctx, job.id, children, (local, remote) => execute(ctx.conn, t.addChildren({ queue: ctx.name, job, local, remote })));
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
