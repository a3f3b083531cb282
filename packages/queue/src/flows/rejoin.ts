import { execute, transitions as t, type JobId } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { getJob } from '../reads/reads.js';

/**
 * [TS] Job `id` was brought back to run (a dead or completed job reprocessed): when it is a flow
 * child, its parent takes back the outcome it recorded for it and counts it open again, so the
 * rerun's own settlement reaches the parent (a parent applies each child's outcome once). A parent
 * that has finished is left alone. Answers whether the parent counts it again.
 *
 * Runs after the reprocess, on the parent's slot (another queue's, possibly): a rerun that settles
 * before this lands finds its outcome already recorded and is not counted again.
 */
export async function rejoinParent<T>(ctx: QueueContext<T>, id: JobId | string): Promise<boolean> {
  const job = await getJob(ctx, id);
  if (job?.parent === undefined) return false;
  return execute(ctx.conn, t.flowRejoin({ parentQueue: job.parent.queue, parentId: job.parent.id, childId: job.id }));
}
