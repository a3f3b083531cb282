import { execute, InvalidArgumentError, transitions as t } from '@echo/protocol';
import type { QueueContext } from '../context.js';

/** What {@link retryJobs} takes. */
export interface RetryJobsOptions {
  /** The state to bring back from; only `dead` holds failed jobs. */
  readonly state: 'dead';
  /** At most this many jobs; every dead job when omitted. */
  readonly count?: number;
  /** Jobs moved per script call, 1..1000; default 500. Bounds how long one call holds the server. */
  readonly chunk?: number;
}

/**
 * Brings dead jobs back to pending (their lane when grouped), oldest first, in bounded chunks: each
 * chunk is one `retry_dead` call, so a morgue of millions never blocks the server. Answers how many
 * moved. Jobs that die while it runs may be picked up too; that is the point of a retry-all.
 *
 * @throws InvalidArgumentError for another state, a count below 1 or a chunk outside 1..1000.
 */
export async function retryJobs<T>(ctx: QueueContext<T>, options: RetryJobsOptions): Promise<number> {
  if ((options.state as string) !== 'dead') throw new InvalidArgumentError('state', "must be 'dead'");
  const count = options.count ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(count) || count < 1) throw new InvalidArgumentError('count', 'must be a positive integer');
  const chunk = options.chunk ?? 500;
  if (!Number.isSafeInteger(chunk) || chunk < 1 || chunk > 1000) throw new InvalidArgumentError('chunk', 'must be an integer in 1..1000');
  let moved = 0;
  while (moved < count) {
    const want = Math.min(chunk, count - moved);
    const step = await execute(ctx.conn, t.retryDead({ queue: ctx.name, limit: want }));
    moved += step;
    if (step < want) break;
  }
  return moved;
}
