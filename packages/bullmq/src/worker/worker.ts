import { EventEmitter } from 'node:events';
import { type Queue as EchoQueue, Worker as EchoWorker, type ClaimedJob, type JobContext, type WorkerStartOptions } from '@echo/queue';
import { attemptsMadeOf, openEnvelope, type Envelope } from '../envelope.js';
import { BullMQInputError, DelayedError, RateLimitError, UnrecoverableError, WaitingChildrenError, WaitingError } from '../errors.js';
import { Job } from '../job.js';
import { echoQueueName } from '../ids.js';
import { openQueue } from '../queue.js';
import { keepBound, withStack } from '../job-options.js';
import type { BackoffStrategy } from './backoff.js';
import { AttemptDelays } from './attempt-delays.js';
import { showLastFailure } from './last-failure.js';
import { advanceScheduler } from '../schedulers/job-schedulers.js';
import { checkConcurrency, checkWorkerOptions, echoWorkerOptions, type WorkerOptions } from './options.js';
import { bullmqSignal } from './signal.js';
import { InFlight } from './in-flight.js';
import { rawJobData } from './raw-job.js';
import { refusePendingChildren } from '../flow/step-parents.js';

import type { Processor, WorkerListener } from './listener.js';
import { wireWorkerEvents } from './wiring.js';
import { giveBackLimited } from './rate-limited.js';

export type { BackoffStrategy, Processor, WorkerListener, WorkerOptions };

/** How often a hand-driven `getNextJob` looks again while it waits for a job, ms. */
const MANUAL_POLL_MS = 50;

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
  readonly #stalls = new Map<string, number>();
  readonly #delays: AttemptDelays;
  readonly #inFlight = new InFlight();
  readonly #ready: Promise<{ queue: EchoQueue<Envelope>; worker: EchoWorker<Envelope> | undefined }>;
  #closing: Promise<void> | undefined;
  #closed: (() => void) | undefined;
  readonly #closedPromise: Promise<void>;
  #running_ = false;
  #paused = false;
  #concurrency: number;
  /** Ends the pending `run()`: BullMQ's main loop ends when the worker closes or pauses and waits. */
  #loopEnded: (() => void) | undefined;

  constructor(name: string, processor?: Processor<DataType, ResultType, NameType> | string | URL | null, opts: WorkerOptions = {}) {
    super();
    checkWorkerOptions(opts, processor);
    this.#echoName = echoQueueName(name, opts.prefix);
    this.name = name;
    this.opts = opts;
    // A null processor is BullMQ's manual processing: jobs are taken with getNextJob(token).
    this.#processor = typeof processor === 'function' ? processor : undefined;
    this.#concurrency = opts.concurrency ?? 1;
    this.#delays = new AttemptDelays(opts.settings?.backoffStrategy, (id) => this.#running.get(id));
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
    // Running from the call on, as BullMQ's run() is: a second call meanwhile is refused.
    this.#running_ = true;
    const { worker } = await this.#ready.catch((error: unknown) => {
      this.#running_ = false;
      throw error;
    });
    if (!worker) return;
    worker.run();
    if (this.#paused) worker.resume();
    this.#paused = false;
    await Promise.race([new Promise<void>((resolve) => (this.#loopEnded = resolve)), this.#closedPromise]);
  }

  /** How many jobs this worker runs at once. */
  get concurrency(): number {
    return this.#concurrency;
  }

  /**
   * Changes how many jobs this worker runs at once, from now on: raising it starts more at once;
   * lowering it lets running jobs finish and takes no new job until fewer than `concurrency` run.
   * @throws BullMQInputError (BullMQ's text) unless it is a finite number >= 1; nothing changes then.
   */
  set concurrency(concurrency: number) {
    checkConcurrency(concurrency);
    this.#concurrency = concurrency;
    // Applied in the order set, once the worker started (at once when it has).
    void this.#ready.then(({ worker }) => worker?.setConcurrency(Math.floor(this.#concurrency)), () => undefined);
  }

  /** Waits `ms` (BullMQ's pause between looks; `abortController` ends it early). */
  async delay(ms = 0, abortController?: AbortController): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      abortController?.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }

  /** True while the worker takes jobs. */
  isRunning(): boolean {
    return this.#running_;
  }

  /**
   * Stops taking new jobs; resolves when the jobs running now have ended (at once with
   * `doNotWaitActive`), or when the worker closes meanwhile.
   */
  async pause(doNotWaitActive = false): Promise<void> {
    if (this.#paused) return;
    this.#paused = true;
    (await this.#ready).worker?.pause();
    if (!doNotWaitActive) {
      await this.#inFlight.idle(this.#closedPromise);
      // BullMQ's main loop has ended now: isRunning() reads false and a pending run() resolves.
      this.#endLoop();
    }
    this.emit('paused');
  }

  /** Takes jobs again; starts a worker whose loop ended (paused, or not run yet) when it has a processor. */
  async resume(): Promise<void> {
    if (this.#running_ && !this.#paused) return;
    if (this.#closing !== undefined) return;
    this.#paused = false;
    const { worker } = await this.#ready;
    if (worker) {
      worker.resume();
      worker.run();
      this.#running_ = true;
    }
    this.emit('resumed');
  }

  #endLoop(): void {
    this.#running_ = false;
    this.#loopEnded?.();
    this.#loopEnded = undefined;
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
    await queue.rateLimit(ms);
  }

  /**
   * Lets running jobs finish, then closes the worker and its connection. With `force`, running jobs
   * are not waited for: their locks are no longer renewed, so another worker takes them as stalled.
   */
  close(force = false): Promise<void> {
    this.#closing ??= (async () => {
      this.emit('closing', 'closing queue');
      const started = await this.#ready.catch(() => undefined);
      if (started) {
        // BullMQ's force close does not wait for running jobs: their locks lapse and they stall.
        await started.worker?.close({ force });
        await started.queue.close();
      }
      this.#endLoop();
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
        if (openEnvelope(claimed.payload).r !== undefined) await this.#advance(queue, claimed);
        const job = Job.fromManual<DataType, ResultType, NameType>({
          queue, claimed, token, lockMs,
          backoff: (attempt, error) => this.#delays.delay(attempt, error, claimed),
          fetchNext: async () => {
            const next = await this.getNextJob(token, { block: false });
            return next === undefined ? [] : [rawJobData(next), next.id, 0, 0];
          },
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
    return echoWorkerOptions(opts, {
      backoff: (attempt, error, claimed) => this.#delays.delay(attempt, error, claimed),
      onError: (error) => this.#emitError(error),
    });
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
      const book = { running: this.#running, contexts: this.#contexts, stalls: this.#stalls, delays: this.#delays, inFlight: this.#inFlight };
      wireWorkerEvents({ ...book, emit: (event, ...args) => this.emit(event, ...args), emitError: (error) => this.#emitError(error) }, queue, worker);
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
    job.stalledCounter = this.#stalls.get(claimed.id) ?? 0;
    if (this.opts.name !== undefined) job.processedBy = this.opts.name;
    // A job taken to run is no longer delayed: BullMQ zeroes its delay as it promotes it.
    job.delay = 0;
    this.#inFlight.add(claimed.id);
    // BullMQ makes a scheduler's next job when the job of the run before starts.
    if (openEnvelope(claimed.payload).r !== undefined) await this.#advance(queue, claimed);
    this.#running.set(claimed.id, job);
    this.#contexts.set(claimed.id, context);
    // A retried job shows the failure of the attempt before, as BullMQ's job does (read only on
    // retries, once the job is listed as running here, so a stall reported meanwhile reaches it).
    if (claimed.attempts > 1) await showLastFailure(queue, claimed.id, job).catch((error: unknown) => this.#emitError(error));
    this.emit('active', job, 'waiting');
    const processor = this.#processor as Processor<DataType, ResultType, NameType>;
    const maxStarts = this.opts.maxStartedAttempts;
    // A job started more often than allowed fails for good, its processor not run (BullMQ's check).
    if (maxStarts !== undefined && maxStarts > 0 && claimed.attempts > maxStarts) throw new UnrecoverableError('job started more than allowable limit');
    try {
      // The abort signal is made on first read; a processor that takes no third argument never pays for it.
      const result = await (processor.length > 2 ? processor(job, job.token, bullmqSignal(context.signal)) : processor(job, job.token));
      await refusePendingChildren(queue, claimed.id, job.id);
      return result;
    } catch (error) {
      if (error instanceof DelayedError || error instanceof WaitingError || error instanceof WaitingChildrenError) {
        this.#movedAway(claimed.id);
        return undefined;
      }
      if (error instanceof RateLimitError) {
        // BullMQ puts a rate-limited job back to wait, first among its equals; the queue's limit
        // window (worker.rateLimit) keeps every worker from taking it before the window ends.
        this.#running.delete(claimed.id);
        await giveBackLimited(queue, claimed.id, job.id, context, (failure) => this.#emitError(failure));
        this.#movedAway(claimed.id);
        return undefined;
      }
      if (!(error instanceof UnrecoverableError)) await this.#delays.ask(claimed, job, error);
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
    const delayMs = this.#delays.delay(claimed.attempts, error, claimed);
    await context.moveToDelayed({ delayMs });
    this.#movedAway(claimed.id);
    const err = error instanceof Error ? error : new Error(String(error));
    job.failedReason = err.message;
    job.stacktrace = withStack(job.stacktrace, err.stack, job.opts.stackTraceLimit);
    job.attemptsMade = attemptsMadeOf(openEnvelope(claimed.payload), claimed.attempts);
    job.delay = delayMs;
    this.emit('failed', job, err, 'active');
    return undefined;
  }

  /**
   * A job the processor moved out of active itself (delayed, waiting for children, rate limited):
   * Echo's worker reports no settlement for it, so its entries here end now (the context too, or
   * every such move would leave one behind).
   */
  #movedAway(echoId: string): void {
    this.#running.delete(echoId);
    this.#contexts.delete(echoId);
    this.#inFlight.done(echoId);
  }

  async #advance(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>): Promise<void> {
    await advanceScheduler(queue, openEnvelope(claimed.payload), this.opts.settings?.repeatStrategy).catch((error: unknown) => this.#emitError(error));
  }

  #emitError(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error') > 0) this.emit('error', err);
    else console.warn(`[@echo/bullmq] worker ${this.name}: ${err.name}: ${err.message}`);
  }
}
