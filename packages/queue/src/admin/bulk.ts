import { execute, InvalidArgumentError, reads, transitions as t } from '@echo/protocol/queue';
import type { QueueContext } from '../core/context.js';
import { checkCleanOptions, checkRetryJobsOptions } from '../core/option-checks.js';

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
  checkRetryJobsOptions(options);
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

/** What {@link clean} takes. */
export interface CleanOptions {
  /**
   * The finished jobs to clean: `completed` (retained completed jobs) or `failed` / `dead` (the
   * dead set; the two names are one state).
   */
  readonly state: 'completed' | 'failed' | 'dead';
  /** Only jobs that finished at least this long ago, in ms. */
  readonly olderThanMs: number;
  /** At most this many jobs; default 1000. */
  readonly limit?: number;
}

/** Jobs deleted per script call. */
const CLEAN_CHUNK = 500;

/**
 * Deletes finished jobs that finished at least `olderThanMs` ago, oldest first, up to `limit`, in
 * chunks of {@link CLEAN_CHUNK} per `clean_completed` / `clean_dead` call. Age is read from the
 * retention index the settling script wrote (finish time by the server's clock), so no row is read
 * to decide. Answers how many were deleted. A dead job that died before this index existed has no
 * finish time and is not reached.
 *
 * @throws InvalidArgumentError for another state, a negative age or a limit below 1.
 */
export async function clean<T>(ctx: QueueContext<T>, options: CleanOptions): Promise<number> {
  checkCleanOptions(options);
  const state = options.state as string;
  if (state !== 'dead' && state !== 'failed' && state !== 'completed') throw new InvalidArgumentError('state', "must be 'completed', 'failed' or 'dead'");
  if (!Number.isSafeInteger(options.olderThanMs) || options.olderThanMs < 0) throw new InvalidArgumentError('olderThanMs', 'must be a non-negative integer');
  const limit = options.limit ?? 1000;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new InvalidArgumentError('limit', 'must be a positive integer');
  const set = state === 'completed' ? 'completed' : 'deadAt';
  // Finish times are stamped by the server's clock, so ages are measured on it too.
  const cutoff = (await reads.sendRead(ctx.conn, reads.queue.time())) - options.olderThanMs;
  let deleted = 0;
  while (deleted < limit) {
    const want = Math.min(CLEAN_CHUNK, limit - deleted);
    const ids = await reads.sendRead(ctx.conn, reads.queue.scoredUpTo({ keys: ctx.keys, set, cutoff, limit: want }));
    if (ids.length === 0) break;
    const step = await execute(ctx.conn, state === 'completed' ? t.cleanCompleted({ queue: ctx.name, ids }) : t.cleanDead({ queue: ctx.name, ids }));
    deleted += step;
    if (ids.length < want) break;
  }
  return deleted;
}
