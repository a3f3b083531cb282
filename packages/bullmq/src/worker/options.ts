import { checkTimeBound, strictOptions } from '@echo/protocol/queue';
import type { WorkerStartOptions } from '@echo/queue';
import type { ConnectionOptions } from '../connection.js';
import { BullMQInputError, NotSupportedError } from '../errors.js';
import { definedOnly } from '../ids.js';
import type { KeepJobs } from '../job-options.js';
import type { BackoffStrategy } from './backoff.js';
import type { RepeatStrategy } from '../schedulers/next-millis.js';

/** `new Worker(name, processor, opts)`'s options, as BullMQ names them. */
export interface WorkerOptions {
  /** Where Redis is: `{ host, port }`, or an Echo `Connection` to share. */
  readonly connection?: ConnectionOptions;
  /** Jobs run at once. Default 1. */
  readonly concurrency?: number;
  /** At most `max` jobs per `duration` ms, for the whole queue (Echo keeps it on the queue). */
  readonly limiter?: { readonly max: number; readonly duration: number };
  /** Start at once (default) or on `run()`. */
  readonly autorun?: boolean;
  /** `backoffStrategy` for custom backoff types; `repeatStrategy` for pattern schedulers' next runs. */
  readonly settings?: { readonly backoffStrategy?: BackoffStrategy; readonly repeatStrategy?: RepeatStrategy };
  /** How long a job's lock lasts, ms (Echo's lease). Default 30000. */
  readonly lockDuration?: number;
  /** How often held locks are renewed, ms. Default half the lock. */
  readonly lockRenewTime?: number;
  /** How often this worker looks for stalled jobs (and runs its other upkeep), ms. */
  readonly stalledInterval?: number;
  /** Stalls after which a job fails. Default 1. */
  readonly maxStalledCount?: number;
  /**
   * Starts a job may have (counting the moves to delayed of step jobs): a job taken more often
   * fails at once with `job started more than allowable limit`, its processor not run. No limit
   * when unset or 0.
   */
  readonly maxStartedAttempts?: number;
  /** How long an idle worker waits for a job before looking again, seconds. Default 5. */
  readonly drainDelay?: number;
  /**
   * The longest a rate-limited worker waits before it looks for jobs again, ms. Default 30000.
   * Echo promotes delayed jobs whether or not the queue is limited, and an idle worker looks again
   * at least every `drainDelay`; a shorter `maximumRateLimitDelay` shortens that wait.
   */
  readonly maximumRateLimitDelay?: number;
  /** Retention of completed jobs (a queue setting in Echo). */
  readonly removeOnComplete?: KeepJobs;
  /** Retention of failed jobs (a queue setting in Echo). */
  readonly removeOnFail?: KeepJobs;
  /** The worker's name, as the queue lists its workers. */
  readonly name?: string;
  /** BullMQ's key prefix (see `QueueOptions.prefix`). */
  readonly prefix?: string;
  /** See `QueueOptions.sharedConnection`. */
  readonly sharedConnection?: boolean;
  /**
   * Never extend the locks of this worker's running jobs: a job that runs past `lockDuration` is
   * recovered as stalled (by this worker's stalled check or another's). Default false.
   */
  readonly skipLockRenewal?: boolean;
  /** Run no stalled check in this worker (another worker, or none, recovers stalled jobs). Default false. */
  readonly skipStalledCheck?: boolean;
}

const UNSUPPORTED: Readonly<Record<string, string>> = {
  useWorkerThreads: 'processors run in the worker process; sandboxed processors are not offered',
  runRetryDelay: 'Echo retries its own connection errors',
  metrics: 'the queue counts completions and failures itself (getMetrics on @echo/queue)',
  telemetry: 'tracing comes through @echo/otel',
};

/** Echo's shortest blocking wait, ms: a shorter BullMQ drainDelay waits this long. */
const MIN_BLOCK_MS = 10;
/** The Echo worker's own idle wait (its `blockMs` default), ms. */
const ECHO_BLOCK_MS = 1000;

/**
 * The Echo worker's idle wait, ms: BullMQ's drainDelay, shortened to maximumRateLimitDelay (a
 * rate-limited Echo worker looks again when its wait ends, or when the window reopens).
 */
function blockMsOf(opts: WorkerOptions): number | undefined {
  const drainMs = opts.drainDelay === undefined ? undefined : Math.round(opts.drainDelay * 1000);
  const waitMs = opts.maximumRateLimitDelay === undefined ? drainMs : Math.min(drainMs ?? ECHO_BLOCK_MS, Math.round(opts.maximumRateLimitDelay));
  return waitMs === undefined ? undefined : Math.max(MIN_BLOCK_MS, waitMs);
}

const checkShape = strictOptions('Worker options', {
  known: ['connection', 'concurrency', 'limiter', 'autorun', 'settings', 'lockDuration', 'lockRenewTime', 'stalledInterval', 'maxStalledCount', 'maxStartedAttempts', 'drainDelay', 'maximumRateLimitDelay', 'removeOnComplete', 'removeOnFail', 'name', 'prefix', 'sharedConnection', 'skipLockRenewal', 'skipStalledCheck', ...Object.keys(UNSUPPORTED)],
  hints: { leaseMs: 'BullMQ spelling here: lockDuration', maxAttempts: 'attempts is a job option (queue.add(name, data, { attempts }))', backoff: 'backoff is a job option; custom strategies go in settings.backoffStrategy' },
  bounds: { lockDuration: 'timer', lockRenewTime: 'timer', stalledInterval: 'timer', maximumRateLimitDelay: 'timer' },
});
const checkLimiter = strictOptions('Worker options.limiter', { known: ['max', 'duration'], hints: { groupKey: 'per-group limits are lanes on @echo/queue (laneRateLimit)' }, bounds: { duration: 'span' } });
const checkSettings = strictOptions('Worker options.settings', { known: ['backoffStrategy', 'repeatStrategy'] });

/** BullMQ's refusal of a concurrency (the option, or the `concurrency` setter), with its text. */
export function checkConcurrency(concurrency: unknown): asserts concurrency is number {
  if (typeof concurrency !== 'number' || !Number.isFinite(concurrency) || concurrency < 1) {
    throw new BullMQInputError('concurrency', 'concurrency must be a finite number greater than 0');
  }
}

/** BullMQ's own refusals of worker options, with its texts. */
function checkBullMQWorkerOptions(opts: WorkerOptions): void {
  for (const key of ['skipLockRenewal', 'skipStalledCheck'] as const) {
    const flag = opts[key];
    if (flag !== undefined && typeof flag !== 'boolean') throw new BullMQInputError(key, `${key} must be a boolean`);
  }
  const { concurrency, maxStalledCount, maxStartedAttempts, stalledInterval, drainDelay } = opts;
  if (concurrency !== undefined) checkConcurrency(concurrency);
  if (maxStalledCount !== undefined && !(maxStalledCount >= 0)) throw new BullMQInputError('maxStalledCount', 'maxStalledCount must be greater or equal than 0');
  if (maxStartedAttempts !== undefined && !(typeof maxStartedAttempts === 'number' && maxStartedAttempts >= 0)) {
    throw new BullMQInputError('maxStartedAttempts', 'maxStartedAttempts must be greater or equal than 0');
  }
  if (stalledInterval !== undefined && !(stalledInterval > 0)) throw new BullMQInputError('stalledInterval', 'stalledInterval must be greater than 0');
  if (drainDelay !== undefined && !(drainDelay > 0)) throw new BullMQInputError('drainDelay', 'drainDelay must be greater than 0');
  const { maximumRateLimitDelay: maxLimitDelay } = opts;
  if (maxLimitDelay !== undefined && !(typeof maxLimitDelay === 'number' && maxLimitDelay > 0)) {
    throw new BullMQInputError('maximumRateLimitDelay', 'maximumRateLimitDelay must be greater than 0');
  }
}

/**
 * Checks a Worker's options and processor before anything opens: unknown keys (with hints), what
 * Echo cannot honour, Echo's time bounds, then BullMQ's own refusals with its texts.
 */
export function checkWorkerOptions(opts: WorkerOptions, processor: unknown): void {
  checkShape(definedOnly(opts));
  for (const key of Object.keys(UNSUPPORTED)) {
    const value = (opts as Record<string, unknown>)[key];
    if (value !== undefined && value !== false) throw new NotSupportedError(`Worker option ${key}`, UNSUPPORTED[key] ?? '');
  }
  if (opts.limiter !== undefined) checkLimiter(opts.limiter);
  // BullMQ's drainDelay is in seconds: bounded as the ms block it becomes.
  if (typeof opts.drainDelay === 'number') checkTimeBound('Worker options', 'drainDelay', opts.drainDelay * 1000, 'timer');
  if (opts.settings !== undefined) checkSettings(opts.settings);
  // No processor (null or undefined) is BullMQ's manual processing.
  if (processor !== null && processor !== undefined && typeof processor !== 'function') {
    throw new NotSupportedError('Worker processor file', 'sandboxed processors (a file path) are not offered; pass a function');
  }
  checkBullMQWorkerOptions(opts);
}

/** The Echo worker's start options for BullMQ's worker options (the callbacks come from the worker). */
export function echoWorkerOptions(opts: WorkerOptions, hooks: Pick<WorkerStartOptions, 'backoff' | 'onError'>): WorkerStartOptions {
  const blockMs = blockMsOf(opts);
  return {
    autorun: false,
    // Echo runs whole slots: a fractional BullMQ concurrency runs its integer part.
    concurrency: Math.floor(opts.concurrency ?? 1),
    // BullMQ's default is one attempt; a job's own `attempts` (in its row) wins.
    maxAttempts: 1,
    ...hooks,
    ...(opts.lockDuration === undefined ? {} : { leaseMs: opts.lockDuration }),
    ...(opts.lockRenewTime === undefined ? {} : { extendEveryMs: opts.lockRenewTime }),
    ...(opts.stalledInterval === undefined ? {} : { maintenanceMs: opts.stalledInterval }),
    // BullMQ's maxStalledCount is how many stalls a job survives; Echo's maxStalled counts the one that fails it too.
    stalled: { maxStalled: (opts.maxStalledCount ?? 1) + 1 },
    ...(blockMs === undefined ? {} : { blockMs }),
    ...(opts.name === undefined ? {} : { name: opts.name }),
    ...(opts.skipLockRenewal === true ? { extendLeases: false } : {}),
    ...(opts.skipStalledCheck === true ? { recoverLeases: false } : {}),
  };
}
