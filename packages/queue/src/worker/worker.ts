import { jobSettled, jobStarted } from './job-hooks.js';
import { processTraced, tracedRun } from './job-trace.js';
import type { Listener } from '@echo/protocol';
import type { ClaimedJob } from '../job.js';
import { JobTimeoutError } from './errors.js';
import type { WorkerEvents } from './events.js';
import { jobContext, type JobContext, type RunState } from './job-context.js';
import { WorkerRuntime, type LeaseSource, type WorkerStats } from './runtime.js';
import { Rounds } from './rounds.js';
import { LaneFeed } from './lane-feed.js';
import { unencodable } from './result-encoding.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './worker-options.js';

export { jobContext, type JobContext } from './job-context.js';

/**
 * Runs one job. Return a value to complete it (the value feeds a flow parent); throw to retry it
 * (`UnrecoverableError` dead-letters it at once); or call `context.moveToDelayed` to step it.
 */
export type Handler<T> = (job: ClaimedJob<T>, context: JobContext) => unknown;

/** How a {@link Worker} starts, on top of how it runs. */
export interface WorkerStartOptions extends WorkerOptions {
  /** Start claiming at once. Default true; with false, call {@link Worker.run} when ready. */
  readonly autorun?: boolean;
}

/**
 * Leases jobs from one queue and runs a handler on each, up to `concurrency` at once. Leases are
 * extended while handlers run; a failure is retried along the backoff curve and dead-lettered at
 * `maxAttempts` with `last_error` kept. An idle worker parks on the queue's wake list: no polling.
 * A built-in pump promotes due jobs, recovers expired leases and fires repeats, so nothing else has
 * to run beside it.
 *
 * @example
 * const worker = await Worker.start(orders, async (job) => ship(job.payload), { concurrency: 20 });
 * process.on('SIGTERM', () => void worker.close());
 */
export class Worker<T = unknown> {
  /** The name of the queue this worker leases from. */
  readonly queue: string;
  readonly options: ResolvedWorkerOptions;
  readonly #handler: Handler<T>;
  readonly #rt: WorkerRuntime<T>;
  readonly #rounds: Rounds<T>;
  /** Weighted lane claims and their spare jobs, for `source: 'lanes'`. */
  readonly #lanes: LaneFeed<T> | undefined;
  /** Set when a slot found work, cleared (with a `drained` event) when one then found none. */
  #busy = false;
  #started = false;
  /** Set while paused: slots wait on it before claiming. */
  #paused: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;

  private constructor(rt: WorkerRuntime<T>, handler: Handler<T>) {
    this.#rt = rt;
    this.queue = rt.queue;
    this.options = rt.options;
    this.#handler = handler;
    this.#rounds = new Rounds(rt, () => this.#claim());
    this.#lanes = rt.options.source === 'lanes' ? new LaneFeed(rt) : undefined;
  }

  /**
   * Starts a worker on `queue`. It opens one extra connection for the blocking wake read; claims
   * and settlements share the queue's connection.
   * @throws InvalidArgumentError for a bad option, before anything starts.
   */
  static async start<T>(queue: LeaseSource<T>, handler: Handler<T>, options: WorkerStartOptions = {}): Promise<Worker<T>> {
    const resolved = resolveWorkerOptions(options);
    const wake = await queue.leases().openWake('echo-worker-wake');
    const worker = new Worker(new WorkerRuntime(queue, resolved, wake), handler);
    // Listed by queue.getWorkers() from the moment start() resolves, claiming or not.
    await worker.#rt.announce();
    if (options.autorun !== false) worker.#begin();
    return worker;
  }

  /**
   * Starts claiming, for a worker started with `autorun: false` (listeners attached first, say).
   * Idempotent; a closed worker stays closed.
   */
  run(): void {
    this.#begin();
  }

  #begin(): void {
    if (this.#started || !this.#rt.isRunning()) return;
    this.#started = true;
    this.#rt.start(this.options.concurrency, () => this.#slot());
  }

  /**
   * Stops this worker claiming (other workers go on); running handlers finish and settle as usual.
   * Leases of running jobs are still extended. Idempotent.
   */
  pause(): void {
    this.#paused ??= deferred();
  }

  /** Lets a paused worker claim again. */
  resume(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    paused?.resolve();
  }

  /** True between {@link pause} and {@link resume}. */
  get isPaused(): boolean {
    return this.#paused !== undefined;
  }

  /** Listens to one of this worker's events ({@link WorkerEvents}); answers a remover. */
  on<K extends keyof WorkerEvents<T>>(event: K, listener: Listener<WorkerEvents<T>[K]>): () => void {
    return this.#rt.events.on(event, listener);
  }

  /** Like {@link on}, for the next event only. */
  once<K extends keyof WorkerEvents<T>>(event: K, listener: Listener<WorkerEvents<T>[K]>): () => void {
    return this.#rt.events.once(event, listener);
  }

  /** Removes a listener; answers whether it was there. */
  off<K extends keyof WorkerEvents<T>>(event: K, listener: Listener<WorkerEvents<T>[K]>): boolean {
    return this.#rt.events.off(event, listener);
  }

  /** A snapshot of this worker's counters. */
  stats(): Readonly<WorkerStats> {
    return { ...this.#rt.stats };
  }

  /**
   * The error that stopped this worker by itself (the store's fence changed to another major, auth
   * was refused, the user lacks ACL rights on the queue (`PermissionError`), or the queue's
   * connection was closed); `undefined` while healthy.
   */
  get fatalError(): Error | undefined {
    return this.#rt.fatalError;
  }

  /** Jobs currently running here. */
  get running(): number {
    return this.#rt.locks.size;
  }

  async #slot(): Promise<void> {
    const rt = this.#rt;
    let next = this.#rounds.take();
    for (;;) {
      let job: ClaimedJob<T> | undefined;
      try {
        job = await next;
      } catch (error) {
        if (!rt.isRunning() || rt.report(error)) break;
        job = undefined;
      }
      // Spares of a weighted lane claim are leased to us: they run even while paused or closing.
      job ??= this.#lanes?.spare();
      if (job) {
        this.#busy = true;
        // Found work: there may be more, so pass the wake on before running this one. A job that
        // arrives after close() began still runs: it is leased to us.
        rt.idle.wakeOne();
        next = this.#run(job);
        continue;
      }
      if (!rt.isRunning()) break;
      if (this.#busy && !this.#paused) {
        this.#busy = false;
        rt.events.fire('drained', undefined);
      }
      await rt.idle.wait();
      // A paused worker waits for resume (or close) before it claims again.
      while (this.#paused && rt.isRunning()) await Promise.race([this.#paused.promise, rt.whenClosing()]);
      if (!rt.isRunning()) break;
      next = this.#rounds.take();
    }
    await this.#rounds.drain();
  }

  /** A slot's own claim, for rounds that cannot claim in the fused script (lanes, the gate). */
  async #claim(): Promise<ClaimedJob<T> | undefined> {
    const o = this.options;
    if (o.respectConcurrencyGate && (await this.#rt.leases.isMaxed())) return undefined;
    return this.#lanes ? this.#lanes.next() : this.#rt.leases.claim(o.leaseMs, this.#rt.locks.claimOptions);
  }

  /**
   * Runs the handler, hands its verdict to the round of this turn and answers the next job: a
   * success and the next claim travel in one script; a failure settles on its own.
   */
  async #run(job: ClaimedJob<T>): Promise<ClaimedJob<T> | undefined> {
    const state: RunState = { moved: undefined, over: false };
    const context = jobContext(this.#rt, job, state);
    let result: unknown;
    let failure: { reason: unknown } | undefined;
    jobStarted(this.queue, job);
    try {
      result = processTraced() ? await tracedRun(this.queue, [job], false, () => this.#call(job, context)) : await this.#call(job, context);
    } catch (reason) {
      failure = { reason };
    }
    state.over = true;
    failure ??= unencodable(result);
    const events = this.#rt.events;
    let settling: Promise<unknown>;
    if (state.moved !== undefined) {
      // The handler settled its own job (a step): completing it now would undo the move.
      if (failure && !(failure.reason instanceof JobTimeoutError)) this.#rt.options.onError(failure.reason, job);
      settling = state.moved;
    } else if (failure) {
      const reason = failure.reason;
      const verdict = this.#rounds.fail(job, reason);
      jobSettled(this.queue, job, failure, verdict);
      settling = verdict.then((outcome) => {
        if (outcome === 'scheduled' || outcome === 'dead') events.fire('failed', { job, error: reason, outcome });
      });
    } else {
      const verdict = this.#rounds.complete(job, result);
      jobSettled(this.queue, job, failure, verdict);
      settling = verdict.then((outcome) => {
        if (outcome === 'ok') events.fire('completed', { job, result });
      });
    }
    void settling.then(() => this.#rt.locks.untrack(job));
    if (!this.#rt.isRunning() || this.#paused) return undefined;
    return this.#rounds.take();
  }

  /** The handler call itself: under the job's time limit when it has one. */
  #call(job: ClaimedJob<T>, context: JobContext): unknown {
    return job.timeoutMs === undefined ? this.#handler(job, context) : this.#timed(job, context, job.timeoutMs);
  }

  /**
   * Runs the handler under its job's time limit: past it the context's signal aborts with a
   * {@link JobTimeoutError} and the attempt fails with it, without waiting for the handler any
   * longer (a handler that ignores its signal runs on, and its late result is dropped).
   */
  #timed(job: ClaimedJob<T>, context: JobContext, timeoutMs: number): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new JobTimeoutError(timeoutMs);
        context.cancel.cancel(error.message, error);
        reject(error);
      }, timeoutMs);
    });
    const running = new Promise<unknown>((resolve) => {
      resolve(this.#handler(job, context));
    });
    // The loser of the race must not surface as an unhandled rejection.
    running.catch(() => undefined);
    return Promise.race([running, expired]).finally(() => clearTimeout(timer));
  }

  /**
   * Stops claiming, lets running handlers finish (up to `closeTimeoutMs`, then fires their cancel
   * tokens), and closes the wake connection. Idempotent; the queue's connection stays open.
   */
  close(): Promise<void> {
    return this.#rt.close();
  }
}

function deferred(): { readonly promise: Promise<void>; readonly resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
