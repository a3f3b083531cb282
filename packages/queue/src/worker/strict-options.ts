import { InvalidArgumentError, strictOptions, type OptionCheck, type TimeBound } from '@echo/protocol/queue';
import { checkCurveKeys } from '../core/backoff.js';

/**
 * The strict checks of the worker entry points: an option the worker does not know throws
 * `UnknownOptionError` before anything starts. Names a BullMQ user brings get a sentence naming
 * what means it here, or saying plainly that we have no such thing.
 */

/** Every key `WorkerOptions` reads. */
const WORKER_KEYS = [
  'name',
  'concurrency',
  'source',
  'leaseMs',
  'extendEveryMs',
  'extendLeases',
  'maxAttempts',
  'backoff',
  'blockMs',
  'maintenanceMs',
  'stalled',
  'recoverLeases',
  'publishEvents',
  'lockMarkers',
  'respectConcurrencyGate',
  'closeTimeoutMs',
  'onError',
] as const;

/** BullMQ's `WorkerOptions` (and its `QueueBaseOptions`), mapped to ours. */
const BULLMQ_HINTS: Readonly<Record<string, string>> = {
  limiter: "BullMQ's limiter is a queue setting here: queue.setRateLimit({ max, durationMs }), enforced on the server for every worker",
  attempts: "BullMQ's attempts is maxAttempts here (the cap for jobs enqueued without their own attempts)",
  removeOnComplete: "BullMQ's removeOnComplete is queue retention here: keep: { completed: { count, ageMs } } on Queue.open, or queue.setRetention(...)",
  removeOnFail: "BullMQ's removeOnFail is queue retention here: keep: { failed: { count, ageMs } } on Queue.open, or queue.setRetention(...)",
  lockDuration: "BullMQ's lockDuration is leaseMs here (the lease length in ms, extended while the handler runs)",
  lockRenewTime: "BullMQ's lockRenewTime is extendEveryMs here (how often held leases are extended)",
  stalledInterval: "BullMQ's stalledInterval is maintenanceMs here (the period of the built-in pump that recovers expired leases)",
  maxStalledCount: "BullMQ's maxStalledCount is stalled: { maxStalled } here",
  skipStalledCheck: "BullMQ's skipStalledCheck is recoverLeases: false here (this worker's pump recovers no expired lease)",
  skipLockRenewal: "BullMQ's skipLockRenewal is extendLeases: false here (held leases are not extended)",
  connection: "a worker speaks through its queue's connection here: pass connection or connect to Queue.open, then Worker.start(queue, ...)",
  blockingConnection: "the worker opens its own wake connection from its queue's; there is nothing to pass",
  prefix: 'there is no key prefix: the keyspace is fixed by the protocol; use another queue name or another Redis database',
  settings: "BullMQ's settings.backoffStrategy is backoff here: a curve (fixed, exponential, jitter) or a function (attempt, error, job) => ms",
  backoffStrategy: 'a custom backoff is backoff here: a function (attempt, error, job) => ms',
  drainDelay: "BullMQ's drainDelay is blockMs here (how long an idle worker blocks on the wake list, in ms)",
  runRetryDelay: 'there is no such option: a worker that meets an error waits for its next wake beat (blockMs) before it claims again',
  useWorkerThreads: 'there are no worker threads: handlers run in the worker\'s own process; start one worker per thread or process',
  metrics: "metrics are always counted here: read them with queue.getMetrics('completed' | 'failed')",
  maxStartedAttempts: 'there is no separate cap on starts: maxAttempts counts every claim of a job',
  skipVersionCheck: 'there is no such option: the version fence is checked on every connection',
  telemetry: 'telemetry rides on diagnostics_channel hooks here (emq.job.*): subscribe with @echo/otel, no option needed',
  timeout: 'a time limit is per job here: enqueue it with timeoutMs',
};

/** Every time-like worker option is waited on with a timer (a lease is extended by one), so each holds one. */
const WORKER_BOUNDS: Readonly<Record<string, TimeBound>> = { leaseMs: 'timer', extendEveryMs: 'timer', blockMs: 'timer', maintenanceMs: 'timer', closeTimeoutMs: 'timer' };

const STALLED_KNOWN = ['maxStalled'];
const STALLED_HINTS = { maxStalledCount: "BullMQ's maxStalledCount is maxStalled here" };

const checkWorker = strictOptions('Worker.start options', { known: [...WORKER_KEYS, 'autorun'], hints: BULLMQ_HINTS, bounds: WORKER_BOUNDS });
const checkWorkerStalled = strictOptions('Worker.start options.stalled', { known: STALLED_KNOWN, hints: STALLED_HINTS });

const checkBatch = strictOptions('BatchWorker.start options', {
  known: [...WORKER_KEYS.filter((key) => key !== 'respectConcurrencyGate'), 'size', 'shape', 'onBatch', 'autorun'],
  hints: {
    ...BULLMQ_HINTS,
    batch: "BullMQ Pro's batch: { size } is size here, and its minSize/timeout are shape: { minSize, timeoutMs }",
    respectConcurrencyGate: 'a BatchWorker does not ask the concurrency gate before a claim; use a Worker for respectConcurrencyGate',
  },
  bounds: WORKER_BOUNDS,
});
const checkBatchStalled = strictOptions('BatchWorker.start options.stalled', { known: STALLED_KNOWN, hints: STALLED_HINTS });
const checkShape = strictOptions('BatchWorker.start options.shape', {
  known: ['minSize', 'timeoutMs', 'pollMs'],
  hints: { timeout: "BullMQ Pro's batch timeout is timeoutMs here (ms)", size: 'the batch size is size on the BatchWorker options, beside shape' },
  bounds: { timeoutMs: 'timer', pollMs: 'timer' },
});

/** Checks an options object, the nested object under `stalled` and the `backoff` curve. */
function checkNested(options: object | undefined, top: OptionCheck, stalled: OptionCheck): void {
  top(options);
  if (options === undefined) return;
  if ('stalled' in options && isObject(options.stalled)) stalled(options.stalled);
  if ('backoff' in options) checkCurveKeys(options.backoff);
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** @throws UnknownOptionError for a key `Worker.start` does not read (here or under `stalled`). */
export function checkWorkerOptions(options: object | undefined): void {
  checkNested(options, checkWorker, checkWorkerStalled);
}

/** @throws UnknownOptionError for a key `BatchWorker.start` does not read (here, under `stalled` or `shape`). */
export function checkBatchWorkerOptions(options: object | undefined): void {
  checkNested(options, checkBatch, checkBatchStalled);
  if (options !== undefined && 'shape' in options && isObject(options.shape)) checkShape(options.shape);
}

/**
 * `Worker.start(queue, handler)`'s own arguments, checked before anything starts: a queue name in
 * place of the queue would fail as `queue.leases is not a function`, and a handler that is not a
 * function would only fail once a job was claimed for it.
 * @throws InvalidArgumentError naming the argument.
 */
export function checkWorkerArguments(where: string, queue: unknown, handler: unknown): void {
  const leases = isObject(queue) ? (queue as { leases?: unknown }).leases : undefined;
  if (typeof leases !== 'function') {
    const hint = typeof queue === 'string' ? `: open it first, Worker.start(await Queue.open(${JSON.stringify(queue)}, ...), handler)` : '';
    throw new InvalidArgumentError(`${where} queue`, `must be a queue opened by Queue.open${hint}`);
  }
  if (typeof handler !== 'function') throw new InvalidArgumentError(`${where} handler`, 'must be a function');
}
