import { checkTimeBound, execute, GoneError, StateError, transitions as t, type JobId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { rejoinParent } from '../flows/rejoin.js';

/**
 * Releases one scheduled job now, or moves its due time to `inMs` from server now.
 * @throws GoneError when the job does not exist; StateError("not scheduled") when it is not waiting on a time.
 */
export async function rescheduleJob<T>(ctx: QueueContext<T>, id: JobId | string, inMs?: number): Promise<void> {
  checkTimeBound('changeDelay', 'delayMs', inMs, 'span');
  const answer = await execute(ctx.conn, t.rescheduleJob({ queue: ctx.name, id, ...(inMs === undefined ? {} : { inMs }) }));
  if (answer === 'gone') throw new GoneError();
  if (answer === 'not_scheduled') throw new StateError('not scheduled');
}

/**
 * Brings a dead job back to pending (its lane when grouped), clearing `last_error` (queue.md §4.3).
 * [TS] A flow child counts as open for its parent again (see {@link rejoinParent}).
 * @throws GoneError when the job does not exist; StateError("not dead") when it is not dead.
 */
export async function reprocess<T>(ctx: QueueContext<T>, id: JobId | string): Promise<void> {
  await execute(ctx.conn, t.reprocess({ queue: ctx.name, id }));
  await rejoinParent(ctx, id);
}

/**
 * [TS] Brings a retained completed job back to pending (its lane when grouped), clearing its
 * finish time and result; its attempts go on counting. A flow child counts as open for its
 * parent again (see {@link rejoinParent}).
 * @throws GoneError when the job does not exist; StateError("not completed") when it is in another state.
 */
export async function reprocessCompleted<T>(ctx: QueueContext<T>, id: JobId | string): Promise<void> {
  await execute(ctx.conn, t.reprocessCompleted({ queue: ctx.name, id }));
  await rejoinParent(ctx, id);
}
