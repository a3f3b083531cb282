import { InvalidArgumentError } from '@echo/protocol/queue';
import { checkCurve, fixed, type Backoff } from '../core/backoff.js';
import type { ClaimedJob } from '../core/job.js';

/**
 * A worker's own retry rule: the delay in ms before the next attempt, given the attempt that just
 * failed (1 on the first), the error the handler threw and the job. A job's own `backoff` wins.
 */
export type BackoffFunction = (attempt: number, error: unknown, job: ClaimedJob<unknown>) => number;

/** Which claim a worker uses: the flat pending set, or the fair lanes. */
export type ClaimSource = 'flat' | 'lanes';

/** Stalled-job accounting, in place of the plain reaper (queue.md §6.2). */
export interface StalledOptions {
  /** Lapses that dead-letter a job. Default 1. */
  readonly maxStalled?: number;
}

/** How a worker runs. Every field has a production default. */
export interface WorkerOptions {
  /**
   * How `queue.getWorkers()` names this worker. Default `<host>:<pid>`. The registry entry is
   * written on each lease beat (every `extendEveryMs`) and lapses after three missed beats (at
   * least 1 s); `close()` removes it at once.
   */
  readonly name?: string;
  /** Jobs run at once. Default 1. */
  readonly concurrency?: number;
  /** Where claims come from. Default `flat`. */
  readonly source?: ClaimSource;
  /** Lease length in ms; extended while the handler runs. Default 30000. */
  readonly leaseMs?: number;
  /** How often held leases are extended. Default half the lease, clamped to [1, lease−1]. */
  readonly extendEveryMs?: number;
  /**
   * Extend the leases of running jobs. Default true. With `false` (BullMQ's `skipLockRenewal`) a
   * job whose handler runs past `leaseMs` lapses and is recovered by a sweep as stalled, while its
   * handler still runs here (its settlement is then refused); the registry beat goes on.
   */
  readonly extendLeases?: boolean;
  /** Attempts before a job is dead-lettered, for jobs enqueued without `attempts`. Default 3. */
  readonly maxAttempts?: number;
  /** Delay curve or function between attempts, for jobs enqueued without `backoff`. Default fixed(1000). */
  readonly backoff?: Backoff | BackoffFunction;
  /** How long an idle worker blocks on the wake list before looking again. Default 1000 ms. */
  readonly blockMs?: number;
  /** Period of the built-in pump (promote, reap or stalled sweep, repeats). Default 1000 ms; 0 turns it off. */
  readonly maintenanceMs?: number;
  /** Use the stalled sweep instead of the plain reaper. */
  readonly stalled?: StalledOptions;
  /**
   * Recover expired leases (the plain reap, or the stalled sweep) in this worker's pump. Default
   * true. With `false` (BullMQ's `skipStalledCheck`) the pump still promotes, fires repeats and
   * delivers the flow outbox, and another worker (or `queue.maintenance()`) recovers lapsed jobs.
   */
  readonly recoverLeases?: boolean;
  /**
   * Publish this worker's settlement events (`completed`, `failed`, `delayed`), each inside the script
   * of its verdict. Default true. The queue-level events (`stalled`, `removed`, admission events)
   * follow the queue's settings, not this option.
   */
  readonly publishEvents?: boolean;
  /** Write the worker-presence marker `job:<id>:lock`, so `remove` refuses held jobs. Default true. */
  readonly lockMarkers?: boolean;
  /** Ask the queue's concurrency gate (`meta.concurrency`) before each claim. Default false. */
  readonly respectConcurrencyGate?: boolean;
  /**
   * How long `close()` waits for running handlers. Default 30000 ms. `close()` as a whole resolves
   * within this plus 6 s, whatever the link does.
   */
  readonly closeTimeoutMs?: number;
  /**
   * Called with errors the worker survives (a failed maintenance tick, a lost lease) and with the
   * one that stops it. Calls that reached no primary (a lost socket, a cluster failover) are folded
   * into an `OutageReport` with its duration when the outage ends, preceded (once) by one with
   * `ongoing` set when it passes 5 s from the last reply. Default: a one-line `console.warn`.
   */
  readonly onError?: (error: unknown, job?: ClaimedJob<unknown>) => void;
}

/** {@link WorkerOptions} with defaults applied and values checked. */
export type ResolvedWorkerOptions = Required<Omit<WorkerOptions, 'stalled' | 'onError' | 'name'>> & {
  readonly name: string | undefined;
  readonly stalled: StalledOptions | undefined;
  readonly onError: (error: unknown, job?: ClaimedJob<unknown>) => void;
};

function positive(name: string, value: number, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}`);
  return value;
}

/** Without a handler, survivable errors still reach the operator: silence would hide a sick worker. */
function defaultOnError(error: unknown, job?: ClaimedJob<unknown>): void {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.warn(`[echo worker]${job ? ` job ${job.id}:` : ''} ${what}`);
}

/** Validates options at the boundary: a bad value fails `start`, never a running worker. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  const leaseMs = positive('leaseMs', options.leaseMs ?? 30_000, 2);
  const extend = options.extendEveryMs ?? Math.floor(leaseMs / 2);
  // Checked at run time too: JavaScript callers are not held to the type.
  const source: unknown = options.source;
  if (source !== undefined && source !== 'flat' && source !== 'lanes') {
    throw new InvalidArgumentError('source', "must be 'flat' or 'lanes'");
  }
  if (options.stalled !== undefined) positive('stalled.maxStalled', options.stalled.maxStalled ?? 1);
  const backoff = options.backoff ?? fixed(1000);
  // Walk the curve once now: a policy that cannot produce a delay would otherwise fail every retry.
  if (typeof backoff !== 'function') checkCurve(backoff);
  for (const key of ['extendLeases', 'recoverLeases'] as const) {
    const flag: unknown = options[key];
    if (flag !== undefined && typeof flag !== 'boolean') throw new InvalidArgumentError(key, 'must be a boolean');
  }
  const name: unknown = options.name;
  if (name !== undefined && (typeof name !== 'string' || name.length === 0 || name.length > 200)) {
    throw new InvalidArgumentError('name', 'must be a string of 1 to 200 characters');
  }
  return {
    name: options.name,
    concurrency: positive('concurrency', options.concurrency ?? 1),
    source: options.source ?? 'flat',
    leaseMs,
    extendEveryMs: Math.min(Math.max(positive('extendEveryMs', extend), 1), leaseMs - 1),
    extendLeases: options.extendLeases ?? true,
    maxAttempts: positive('maxAttempts', options.maxAttempts ?? 3),
    backoff,
    blockMs: positive('blockMs', options.blockMs ?? 1000, 10),
    maintenanceMs: positive('maintenanceMs', options.maintenanceMs ?? 1000, 0),
    stalled: options.stalled,
    recoverLeases: options.recoverLeases ?? true,
    publishEvents: options.publishEvents ?? true,
    lockMarkers: options.lockMarkers ?? true,
    respectConcurrencyGate: options.respectConcurrencyGate ?? false,
    closeTimeoutMs: positive('closeTimeoutMs', options.closeTimeoutMs ?? 30_000, 0),
    onError: options.onError ?? defaultOnError,
  };
}
