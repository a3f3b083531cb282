import { EventEmitter } from 'node:events';
import { checkTimeBound, InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import { type Queue as EchoQueue, Worker as EchoWorker, type ClaimedJob, type JobContext, type WorkerStartOptions } from '@echo/queue';
import type { ConnectionOptions } from './connection.js';
import { openEnvelope, type Envelope } from './envelope.js';
import { BullMQInputError, DelayedError, NotSupportedError, RateLimitError, UnrecoverableError, WaitingChildrenError } from './errors.js';
import { Job, type JobProgress } from './job.js';
import { definedOnly, echoQueueName } from './ids.js';
import { openQueue } from './queue.js';
import { keepBound, type KeepJobs } from './job-options.js';

/** A processor: runs one job; its return value is the job's `returnvalue`. */
export type Processor<D = unknown, R = unknown, N extends string = string> = (job: Job<D, R, N>, token?: string, signal?: AbortSignal) => Promise<R>;

/** BullMQ's custom backoff: the delay before the next attempt of a job whose `backoff.type` is custom. */
export type BackoffStrategy = (attemptsMade: number, type?: string, err?: Error, job?: Job) => number;

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
  /** `backoffStrategy` for custom backoff types. */
  readonly settings?: { readonly backoffStrategy?: BackoffStrategy };
  /** How long a job's lock lasts, ms (Echo's lease). Default 30000. */
  readonly lockDuration?: number;
  /** How often held locks are renewed, ms. Default half the lock. */
  readonly lockRenewTime?: number;
  /** How often this worker looks for stalled jobs (and runs its other upkeep), ms. */
  readonly stalledInterval?: number;
  /** Stalls after which a job fails. Default 1. */
  readonly maxStalledCount?: number;
  /** How long an idle worker waits for a job before looking again, seconds. Default 5. */
  readonly drainDelay?: number;
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
}

/** The worker's events and their arguments, as BullMQ emits them. */
export interface WorkerListener<D = unknown, R = unknown, N extends string = string> {
  /** The worker took the job. */
  active(job: Job<D, R, N>, prev: string): void;
  /** The job completed with `result`. */
  completed(job: Job<D, R, N>, result: R, prev: string): void;
  /** An attempt failed (the job may retry); `job` is undefined when it could not be read. */
  failed(job: Job<D, R, N> | undefined, error: Error, prev: string): void;
  /** The running job reported progress. */
  progress(job: Job<D, R, N>, progress: JobProgress): void;
  /** The queue has no waiting job left. */
  drained(): void;
  /** The worker hit an error it survives (or the one that stopped it). */
  error(failedReason: Error): void;
  /** A job's lock lapsed and it was taken back. */
  stalled(jobId: string, prev: string): void;
  /** The worker closed. */
  closed(): void;
  /** The worker is connected. */
  ready(): void;
}

const UNSUPPORTED: Readonly<Record<string, string>> = {
  useWorkerThreads: 'processors run in the worker process; sandboxed processors are not offered',
  skipLockRenewal: 'Echo always renews the leases of running jobs',
  skipStalledCheck: 'Echo always recovers expired leases',
  runRetryDelay: 'Echo retries its own connection errors',
  metrics: 'the queue counts completions and failures itself (getMetrics on @echo/queue)',
  telemetry: 'tracing comes through @echo/otel',
};

/** Echo's shortest blocking wait, ms: a shorter BullMQ drainDelay waits this long. */
const MIN_BLOCK_MS = 10;

/** How often a hand-driven `getNextJob` looks again while it waits for a job, ms. */
const MANUAL_POLL_MS = 50;

/** BullMQ's own refusals of worker options, with its texts. */
function checkBullMQWorkerOptions(opts: WorkerOptions): void {
  const { concurrency, maxStalledCount, stalledInterval, drainDelay } = opts;
  if (concurrency !== undefined && (typeof concurrency !== 'number' || !Number.isFinite(concurrency) || concurrency < 1)) {
    throw new BullMQInputError('concurrency', 'concurrency must be a finite number greater than 0');
  }
  if (maxStalledCount !== undefined && !(maxStalledCount >= 0)) throw new BullMQInputError('maxStalledCount', 'maxStalledCount must be greater or equal than 0');
  if (stalledInterval !== undefined && !(stalledInterval > 0)) throw new BullMQInputError('stalledInterval', 'stalledInterval must be greater than 0');
  if (drainDelay !== undefined && !(drainDelay > 0)) throw new BullMQInputError('drainDelay', 'drainDelay must be greater than 0');
}

const checkWorkerOptions = strictOptions('Worker options', {
  known: ['connection', 'concurrency', 'limiter', 'autorun', 'settings', 'lockDuration', 'lockRenewTime', 'stalledInterval', 'maxStalledCount', 'drainDelay', 'removeOnComplete', 'removeOnFail', 'name', 'prefix', 'sharedConnection', ...Object.keys(UNSUPPORTED)],
  hints: { leaseMs: 'BullMQ spelling here: lockDuration', maxAttempts: 'attempts is a job option (queue.add(name, data, { attempts }))', backoff: 'backoff is a job option; custom strategies go in settings.backoffStrategy' },
  bounds: { lockDuration: 'timer', lockRenewTime: 'timer', stalledInterval: 'timer' },
});
const checkLimiter = strictOptions('Worker options.limiter', { known: ['max', 'duration'], hints: { groupKey: 'per-group limits are lanes on @echo/queue (laneRateLimit)' }, bounds: { duration: 'span' } });
const checkSettings = strictOptions('Worker options.settings', { known: ['backoffStrategy'] });

/**
 * BullMQ's `Worker` over an Echo worker: takes jobs from the queue `name` and runs `processor` on
 * each, `concurrency` at once. It starts in the background (BullMQ's constructor is synchronous).
 */
export class Worker<DataType = unknown, ResultType = unknown, NameType extends string = string> extends EventEmitter {
  /** The queue's name. */
  readonly name: string;
  /** The options it was made with. */
  readonly opts: WorkerOptions;
  readonly #echoName: string;
  readonly #processor: Processor<DataType, ResultType, NameType> | undefined;
  readonly #running = new Map<string, Job<DataType, ResultType, NameType>>();
  readonly #contexts = new Map<string, JobContext>();
  readonly #ready: Promise<{ queue: EchoQueue<Envelope>; worker: EchoWorker<Envelope> | undefined }>;
  #closing: Promise<void> | undefined;
  #closed: (() => void) | undefined;
  readonly #closedPromise: Promise<void>;
  #rateLimitMs = 0;
  #running_ = false;
  #paused = false;

  constructor(name: string, processor: Processor<DataType, ResultType, NameType> | string | URL | null, opts: WorkerOptions = {}) {
    super();
    checkWorkerOptions(definedOnly(opts));
    for (const key of Object.keys(UNSUPPORTED)) {
      if ((opts as Record<string, unknown>)[key] !== undefined && (opts as Record<string, unknown>)[key] !== false) throw new NotSupportedError(`Worker option ${key}`, UNSUPPORTED[key] ?? '');
    }
    if (opts.limiter !== undefined) checkLimiter(opts.limiter);
    // BullMQ's drainDelay is in seconds: bounded as the ms block it becomes.
    if (typeof opts.drainDelay === 'number') checkTimeBound('Worker options', 'drainDelay', opts.drainDelay * 1000, 'timer');
    if (opts.settings !== undefined) checkSettings(opts.settings);
    if (processor !== null && typeof processor !== 'function') {
      throw new NotSupportedError('Worker processor file', 'sandboxed processors (a file path) are not offered; pass a function');
    }
    checkBullMQWorkerOptions(opts);
    this.#echoName = echoQueueName(name, opts.prefix);
    this.name = name;
    this.opts = opts;
    // A null processor is BullMQ's manual processing: jobs are taken with getNextJob(token).
    this.#processor = processor ?? undefined;
    this.#closedPromise = new Promise((resolve) => (this.#closed = resolve));
    const echoOptions = this.#echoOptions(opts);
    this.#ready = this.#start(echoOptions, opts);
    this.#ready.then(
      () => this.emit('ready'),
      (error: unknown) => this.#emitError(error),
    );
  }

  /** BullMQ's way to say "rate limited, put the job back": throw the error it answers. */
  static RateLimitError(): Error {
    return new RateLimitError();
  }

  /** Resolves once the worker is connected (and running, with `autorun`). */
  async waitUntilReady(): Promise<void> {
    await this.#ready;
  }

  /** Starts taking jobs (with `autorun: false`); resolves when the worker closes. */
  async run(): Promise<void> {
    if (!this.#processor) throw new BullMQInputError('processor', 'No process function is defined.');
    if (this.#running_) throw new BullMQInputError('run', 'Worker is already running.');
    const { worker } = await this.#ready;
    if (!worker) return;
    this.#running_ = true;
    worker.run();
    await this.#closedPromise;
  }

  /** True while the worker takes jobs. */
  isRunning(): boolean {
    return this.#running_;
  }

  /** Stops taking new jobs; running ones finish. */
  async pause(_doNotWaitActive?: boolean): Promise<void> {
    this.#paused = true;
    (await this.#ready).worker?.pause();
  }

  /** Takes jobs again. */
  resume(): void {
    this.#paused = false;
    void this.#ready.then(({ worker }) => worker?.resume(), () => undefined);
  }

  /** True while paused. */
  isPaused(): boolean {
    return this.#paused;
  }

  /**
   * Limits the whole queue for `ms`: no worker takes a job until then. Throw
   * `Worker.RateLimitError()` afterwards to put the current job back.
   */
  async rateLimit(ms: number): Promise<void> {
    const { queue } = await this.#ready;
    this.#rateLimitMs = ms;
    await queue.rateLimit(ms);
  }

  /** Lets running jobs finish (unless `force`), then closes the worker and its connection. */
  close(force = false): Promise<void> {
    this.#closing ??= (async () => {
      const started = await this.#ready.catch(() => undefined);
      if (started) {
        if (force) started.worker?.pause();
        await started.worker?.close();
        await started.queue.close();
      }
      this.#running_ = false;
      this.#closed?.();
      this.emit('closed');
    })();
    return this.#closing;
  }

  /**
   * BullMQ's manual processing: takes the next job for `token`, to be settled with
   * `job.moveToCompleted(value, token)` or `job.moveToFailed(error, token)`. Waits up to
   * `drainDelay` for one unless `block` is false; answers undefined when none came.
   */
  async getNextJob(token: string, opts: { readonly block?: boolean } = {}): Promise<Job<DataType, ResultType, NameType> | undefined> {
    const { queue } = await this.#ready;
    const lockMs = this.opts.lockDuration ?? 30_000;
    const waitMs = opts.block === false ? 0 : (this.opts.drainDelay ?? 5) * 1000;
    const until = Date.now() + waitMs;
    for (;;) {
      if (this.#closing !== undefined || this.#paused) return undefined;
      const claimed = await queue.leases().claim(lockMs, { markerTtlMs: lockMs });
      if (claimed) {
        const strategy = this.opts.settings?.backoffStrategy;
        const job = Job.fromManual<DataType, ResultType, NameType>({
          queue, claimed, token, lockMs,
          backoff: (attempt, error) => this.#backoff(attempt, error, claimed, strategy),
        });
        this.emit('active', job, 'waiting');
        return job;
      }
      const left = until - Date.now();
      if (left <= 0) return undefined;
      // No wake channel for a hand-driven taker: look again shortly, within the wait asked for.
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, MANUAL_POLL_MS)));
    }
  }

  /**
   * Cancels a job this worker is running: its processor's `signal` aborts with `reason`. Answers
   * false when this worker is not running the job.
   */
  cancelJob(jobId: string, reason?: string): boolean {
    for (const [echoId, job] of this.#running) {
      if (job.id !== jobId) continue;
      const context = this.#contexts.get(echoId);
      if (!context) return false;
      context.cancel.cancel(reason ?? 'cancelled');
      return true;
    }
    return false;
  }

  /** Cancels every job this worker is running (see {@link cancelJob}). */
  cancelAllJobs(reason?: string): void {
    for (const context of this.#contexts.values()) context.cancel.cancel(reason ?? 'cancelled');
  }

  /** Listens to `event`, with BullMQ's arguments. */
  override on<K extends keyof WorkerListener<DataType, ResultType, NameType>>(event: K, listener: WorkerListener<DataType, ResultType, NameType>[K]): this {
    return super.on(event, listener);
  }

  /** Listens to the next `event`. */
  override once<K extends keyof WorkerListener<DataType, ResultType, NameType>>(event: K, listener: WorkerListener<DataType, ResultType, NameType>[K]): this {
    return super.once(event, listener);
  }

  /** Stops listening. */
  override off<K extends keyof WorkerListener<DataType, ResultType, NameType>>(event: K, listener: WorkerListener<DataType, ResultType, NameType>[K]): this {
    return super.off(event, listener);
  }

  #echoOptions(opts: WorkerOptions): WorkerStartOptions {
    const strategy = opts.settings?.backoffStrategy;
    return {
      autorun: false,
      concurrency: opts.concurrency ?? 1,
      // BullMQ's default is one attempt; a job's own `attempts` (in its row) wins.
      maxAttempts: 1,
      backoff: (attempt, error, claimed) => this.#backoff(attempt, error, claimed, strategy),
      ...(opts.lockDuration === undefined ? {} : { leaseMs: opts.lockDuration }),
      ...(opts.lockRenewTime === undefined ? {} : { extendEveryMs: opts.lockRenewTime }),
      ...(opts.stalledInterval === undefined ? {} : { maintenanceMs: opts.stalledInterval }),
      // BullMQ's maxStalledCount is how many stalls a job survives; Echo's maxStalled counts the one that fails it too.
      stalled: { maxStalled: (opts.maxStalledCount ?? 1) + 1 },
      ...(opts.drainDelay === undefined ? {} : { blockMs: Math.max(MIN_BLOCK_MS, Math.round(opts.drainDelay * 1000)) }),
      ...(opts.name === undefined ? {} : { name: opts.name }),
      onError: (error) => this.#emitError(error),
    };
  }

  async #start(echoOptions: WorkerStartOptions, opts: WorkerOptions): Promise<{ queue: EchoQueue<Envelope>; worker: EchoWorker<Envelope> | undefined }> {
    const queue = await openQueue(this.#echoName, opts.connection);
    try {
      if (opts.limiter !== undefined) await queue.setRateLimit({ max: opts.limiter.max, durationMs: opts.limiter.duration });
      if (opts.removeOnComplete !== undefined || opts.removeOnFail !== undefined) {
        await queue.setRetention({
          ...(opts.removeOnComplete === undefined ? {} : { completed: keepBound(opts.removeOnComplete) }),
          ...(opts.removeOnFail === undefined ? {} : { failed: keepBound(opts.removeOnFail) }),
        });
      }
      if (!this.#processor) return { queue, worker: undefined };
      const worker = await EchoWorker.start(queue, (claimed, context) => this.#handle(queue, claimed, context), echoOptions);
      this.#wire(worker);
      if (opts.autorun ?? true) {
        this.#running_ = true;
        worker.run();
      }
      return { queue, worker };
    } catch (error) {
      await queue.close();
      throw error;
    }
  }

  async #handle(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>, context: JobContext): Promise<unknown> {
    const job = Job.fromClaim<DataType, ResultType, NameType>(queue, claimed, {
      context,
      onProgress: (running, progress) => this.emit('progress', running, progress),
    });
    this.#running.set(claimed.id, job);
    this.#contexts.set(claimed.id, context);
    this.emit('active', job, 'waiting');
    const processor = this.#processor as Processor<DataType, ResultType, NameType>;
    try {
      // The abort signal is made on first read; a processor that takes no third argument never pays for it.
      return await (processor.length > 2 ? processor(job, job.token, context.signal) : processor(job, job.token));
    } catch (error) {
      if (error instanceof DelayedError || error instanceof WaitingChildrenError) {
        this.#running.delete(claimed.id);
        return undefined;
      }
      if (error instanceof RateLimitError) {
        this.#running.delete(claimed.id);
        await context.moveToDelayed({ delayMs: Math.max(this.#rateLimitMs, 0) });
        return undefined;
      }
      if (claimed.maxAttempts === undefined && !(error instanceof UnrecoverableError)) return this.#retryFromEnvelope(claimed, context, job, error);
      throw error;
    }
  }

  /**
   * A job made by a scheduler or a flow has no attempts in its row (those admissions take none), so
   * the worker would fail it at once; its own `attempts` travel in the envelope, and this retries it
   * by parking it for the backoff, the way the queue's retry would.
   */
  async #retryFromEnvelope(claimed: ClaimedJob<Envelope>, context: JobContext, job: Job<DataType, ResultType, NameType>, error: unknown): Promise<undefined> {
    const attempts = openEnvelope(claimed.payload).o?.attempts ?? 1;
    if (claimed.attempts >= attempts) throw error;
    const delayMs = this.#backoff(claimed.attempts, error, claimed, this.opts.settings?.backoffStrategy);
    await context.moveToDelayed({ delayMs });
    this.#running.delete(claimed.id);
    const err = error instanceof Error ? error : new Error(String(error));
    job.failedReason = err.message;
    if (err.stack !== undefined) job.stacktrace.push(err.stack);
    job.attemptsMade = claimed.attempts;
    this.emit('failed', job, err, 'active');
    return undefined;
  }

  #wire(worker: EchoWorker<Envelope>): void {
    worker.on('completed', ({ job: claimed, result }) => {
      const job = this.#running.get(claimed.id);
      this.#contexts.delete(claimed.id);
      if (!job) return;
      this.#running.delete(claimed.id);
      job.returnvalue = result as ResultType;
      job.attemptsMade = claimed.attempts;
      job.finishedOn = Date.now();
      this.emit('completed', job, result, 'active');
    });
    worker.on('failed', ({ job: claimed, error }) => {
      const job = this.#running.get(claimed.id);
      this.#running.delete(claimed.id);
      this.#contexts.delete(claimed.id);
      const err = error instanceof Error ? error : new Error(String(error));
      if (job) {
        job.failedReason = err.message;
        if (err.stack !== undefined) job.stacktrace.push(err.stack);
        job.attemptsMade = claimed.attempts;
        job.finishedOn = Date.now();
      }
      this.emit('failed', job, err, 'active');
    });
    worker.on('drained', () => this.emit('drained'));
    worker.on('stalled', ({ id }) => this.emit('stalled', id, 'active'));
  }

  #backoff(attempt: number, error: unknown, claimed: ClaimedJob<unknown>, strategy: BackoffStrategy | undefined): number {
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
    const job = this.#running.get(claimed.id);
    const ms: unknown = strategy(attempt, backoff.type, error instanceof Error ? error : new Error(String(error)), job);
    if (ms instanceof Promise) throw new NotSupportedError('an async backoffStrategy', 'the strategy must answer a number of ms');
    return Math.round(ms as number);
  }

  #emitError(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else console.warn(`[@echo/bullmq] worker ${this.name}: ${err.name}: ${err.message}`);
  }
}
