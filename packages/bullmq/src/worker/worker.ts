import { EventEmitter } from 'node:events';
import { JobStalledError, type Queue as EchoQueue, Worker as EchoWorker, type ClaimedJob, type JobContext, type WorkerStartOptions } from '@echo/queue';
import { attemptsMadeOf, openEnvelope, type Envelope } from '../envelope.js';
import { BullMQInputError, DelayedError, RateLimitError, UnrecoverableError, WaitingChildrenError, WaitingError } from '../errors.js';
import { Job, type JobProgress } from '../job.js';
import { echoQueueName, rememberedJobId } from '../ids.js';
import { openQueue } from '../queue.js';
import { keepBound, withStack } from '../job-options.js';
import { countStep } from '../job-edits.js';
import type { BackoffStrategy } from './backoff.js';
import { AttemptDelays } from './attempt-delays.js';
import { showLastFailure } from './last-failure.js';
import { advanceScheduler } from '../schedulers/job-schedulers.js';
import { checkConcurrency, checkWorkerOptions, echoWorkerOptions, type WorkerOptions } from './options.js';
import { bullmqSignal } from './signal.js';
import { InFlight } from './in-flight.js';
import { rawJobData } from './raw-job.js';
import { refusePendingChildren } from '../flow/step-parents.js';

export type { BackoffStrategy, WorkerOptions };

/** A processor: runs one job; its return value is the job's `returnvalue`. */
export type Processor<D = unknown, R = unknown, N extends string = string> = (job: Job<D, R, N>, token?: string, signal?: AbortSignal) => Promise<R>;

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
  /** The worker began to close. */
  closing(msg: string): void;
  /** The worker closed. */
  closed(): void;
  /** The worker paused (after its running jobs ended, unless paused with `doNotWaitActive`). */
  paused(): void;
  /** The worker resumed. */
  resumed(): void;
  /** The worker is connected. */
  ready(): void;
}

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
      this.#wire(queue, worker);
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
        await this.#giveBackLimited(queue, claimed, context, job);
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
   * Puts a rate-limited job back to wait, its attemptsMade unchanged (the start counts as a step,
   * as BullMQ's moveJobFromActiveToWait leaves `atm` alone). A job gone meanwhile (obliterated)
   * is BullMQ's `Missing key` error on the worker, and the worker leaves the job alone.
   */
  async #giveBackLimited(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>, context: JobContext, job: Job<DataType, ResultType, NameType>): Promise<void> {
    const counted = await countStep(queue, claimed.id, job.id, 'moveJobFromActiveToWait').then(
      () => true,
      (failure: unknown) => {
        this.#emitError(failure);
        return false;
      },
    );
    // Given back even when the count failed, so the worker does not settle the job; a job that
    // is gone answers StaleError, already reported as its missing key.
    await context.giveBack().catch((failure: unknown) => {
      if (counted) this.#emitError(failure);
    });
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

  #wire(queue: EchoQueue<Envelope>, worker: EchoWorker<Envelope>): void {
    worker.on('completed', ({ job: claimed, result }) => {
      const job = this.#running.get(claimed.id);
      this.#contexts.delete(claimed.id);
      this.#inFlight.done(claimed.id);
      if (!job) return;
      this.#running.delete(claimed.id);
      job.returnvalue = result as ResultType;
      job.attemptsMade = attemptsMadeOf(openEnvelope(claimed.payload), claimed.attempts);
      job.finishedOn = Date.now();
      this.emit('completed', job, result, 'active');
    });
    worker.on('failed', ({ job: claimed, error, outcome }) => {
      const job = this.#running.get(claimed.id);
      this.#running.delete(claimed.id);
      this.#contexts.delete(claimed.id);
      this.#inFlight.done(claimed.id);
      if (error instanceof JobStalledError && job === undefined) {
        this.#delays.takeGiven(claimed.id);
        this.#failedByStalls(queue, claimed).catch((failure: unknown) => this.#emitError(failure));
        return;
      }
      // BullMQ's text for a job that stalled more often than maxStalledCount allows.
      const err = error instanceof JobStalledError ? stalledTooOften() : error instanceof Error ? error : new Error(String(error));
      if (job) {
        job.failedReason = err.message;
        job.stacktrace = withStack(job.stacktrace, err.stack, job.opts.stackTraceLimit);
        job.attemptsMade = attemptsMadeOf(openEnvelope(claimed.payload), claimed.attempts);
        // BullMQ's job.delay of a job waiting out its backoff is that backoff.
        const delay = this.#delays.takeGiven(claimed.id);
        if (outcome === 'scheduled' && delay !== undefined) job.delay = delay;
        if (outcome !== 'scheduled') job.finishedOn = Date.now();
      } else {
        this.#delays.takeGiven(claimed.id);
      }
      this.emit('failed', job, err, 'active');
    });
    worker.on('drained', () => this.emit('drained'));
    worker.on('stalled', ({ id }) => {
      // A claim carries no stall count; the stalls this worker took back are counted here instead.
      if (this.#stalls.size >= 10_000) this.#stalls.clear();
      const stalls = (this.#stalls.get(id) ?? 0) + 1;
      this.#stalls.set(id, stalls);
      // The sweep's reply can come after the job's next claim (an idle worker claims on its wake
      // read, as soon as the sweep's wake lands): a job already running here learns its count now.
      const running = this.#running.get(id);
      if (running) running.stalledCounter = stalls;
      // BullMQ names the job by its own id, not Echo's: known when it runs here or was added or
      // run by this process with a custom id; else read from the job's envelope.
      const known = running?.id ?? rememberedJobId(id);
      if (known !== undefined) this.emit('stalled', known, 'active');
      else void this.#stalledJobId(queue, id).then((jobId) => this.emit('stalled', jobId, 'active'));
    });
  }

  /**
   * A job that stalled past its limit was not running here: it is shown as read before the sweep,
   * with the stalls its row counted (every worker's; a row already removed by `removeOnFail`
   * leaves the claim count, one stall per claim).
   */
  async #failedByStalls(queue: EchoQueue<Envelope>, claimed: ClaimedJob<Envelope>): Promise<void> {
    const row = await queue.getJob(claimed.id);
    const job = Job.fromStalled<DataType, ResultType, NameType>(queue, claimed, row?.stalled ?? Math.max(claimed.attempts, this.#stalls.get(claimed.id) ?? 1));
    const err = stalledTooOften();
    job.failedReason = err.message;
    job.stacktrace = withStack(job.stacktrace, err.stack, job.opts.stackTraceLimit);
    job.finishedOn = Date.now();
    this.emit('failed', job, err, 'active');
  }

  /** The application's id of a job Echo calls `echoId` (Echo's id when its row is gone). */
  async #stalledJobId(queue: EchoQueue<Envelope>, echoId: string): Promise<string> {
    const record = await queue.getJob(echoId).catch(() => undefined);
    return record === undefined ? echoId : openEnvelope(record.payload).i ?? echoId;
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

/** BullMQ's failure of a job that stalled more often than `maxStalledCount` allows. */
function stalledTooOften(): Error {
  return new Error('job stalled more than allowable limit');
}
