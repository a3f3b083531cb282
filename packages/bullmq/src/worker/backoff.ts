import { InvalidArgumentError } from '@echo/protocol/queue';
import type { ClaimedJob } from '@echo/queue';
import { openEnvelope } from '../envelope.js';
import { NotSupportedError } from '../errors.js';
import type { Job } from '../job.js';

/** BullMQ's custom backoff: the delay before the next attempt of a job whose `backoff.type` is custom. */
export type BackoffStrategy = (attemptsMade: number, type?: string, err?: Error, job?: Job) => number | Promise<number>;

/**
 * True when the delay after `attempt` comes from the worker's custom strategy (a custom `backoff.type`
 * with attempts left): the worker asks the strategy while the attempt still runs, so it may answer a promise.
 */
export function customBackoff(attempt: number, claimed: ClaimedJob<unknown>, strategy: BackoffStrategy | undefined): string | undefined {
  const opts = openEnvelope(claimed.payload).o;
  const backoff = opts?.backoff;
  if (strategy === undefined || backoff === undefined || typeof backoff === 'number') return undefined;
  if (backoff.type === 'fixed' || backoff.type === 'exponential' || attempt >= (opts?.attempts ?? 1)) return undefined;
  return backoff.type;
}

/**
 * The delay before attempt `attempt + 1` of a claimed job, BullMQ's way: its `backoff` option (a
 * number, `fixed`, `exponential`, or a custom type the worker's strategy reads), 0 on the last attempt.
 */
export function backoffDelay(attempt: number, error: unknown, claimed: ClaimedJob<unknown>, strategy: BackoffStrategy | undefined, job: Job | undefined): number {
  const opts = openEnvelope(claimed.payload).o;
  const backoff = opts?.backoff;
  // The last attempt is not retried: BullMQ does not ask the strategy then.
  if (backoff === undefined || attempt >= (opts?.attempts ?? 1)) return 0;
  if (typeof backoff === 'number') return Math.round(backoff);
  const delay = backoff.delay ?? 0;
  // BullMQ's jitter takes up to that fraction off the curve's delay, at random.
  const jittered = (ms: number): number => Math.round(ms - Math.random() * ms * (backoff.jitter ?? 0));
  if (backoff.type === 'fixed') return jittered(delay);
  if (backoff.type === 'exponential') return jittered(2 ** (attempt - 1) * delay);
  if (!strategy) throw new InvalidArgumentError('backoff.type', `'${backoff.type}' needs settings.backoffStrategy on the worker`);
  const ms: unknown = strategy(attempt, backoff.type, error instanceof Error ? error : new Error(String(error)), job);
  if (ms instanceof Promise) throw new NotSupportedError('an async backoffStrategy', 'the strategy must answer a number of ms');
  return Math.round(ms as number);
}
