import { CancelToken } from './cancel.js';
import type { ClaimedJob } from '../job.js';
import type { Queue } from '../queue.js';
import { WorkerRuntime, type WorkerStats } from './runtime.js';
import { Rounds } from './rounds.js';
import { unencodable } from './result-encoding.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './worker-options.js';

/** What a handler gets besides the job: cancellation and the job's own side channels. */
export interface JobContext {
  /** Fired when the worker closes past its patience, or the job's lease was lost. */
  readonly cancel: CancelToken;
  /** Aborted together with `cancel`, for APIs that take an `AbortSignal`. */
  readonly signal: AbortSignal;
  /** Records progress and publishes the `progress` event. */
  progress(value: string | number): Promise<void>;
  /** Appends a line to the job's log. */
  log(line: string): Promise<number>;
}

/** Runs one job. Return a value to complete it (the value feeds a flow parent); throw to retry it. */
export type Handler<T> = (job: ClaimedJob<T>, context: JobContext) => unknown;

/** Builds the per-job context and tracks the job in the lock plane. */
export function jobContext<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>): JobContext {
  const cancel = new CancelToken();
  rt.locks.track(job, cancel);
  return {
    cancel,
    get signal() {
      return cancel.signal;
    },
    progress: (value) => rt.queue.updateProgress(job.id, value),
    log: (line) => rt.queue.addLog(job.id, line),
  };
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
  readonly queue: Queue<T>;
  readonly options: ResolvedWorkerOptions;
  readonly #handler: Handler<T>;
  readonly #rt: WorkerRuntime<T>;
  readonly #rounds: Rounds<T>;

  private constructor(rt: WorkerRuntime<T>, handler: Handler<T>) {
    this.#rt = rt;
    this.queue = rt.queue;
    this.options = rt.options;
    this.#handler = handler;
    this.#rounds = new Rounds(rt, () => this.#claim());
  }

  /**
   * Starts a worker on `queue`. It opens one extra connection for the blocking wake read; claims
   * and settlements share the queue's connection.
   * @throws InvalidArgumentError for a bad option, before anything starts.
   */
  static async start<T>(queue: Queue<T>, handler: Handler<T>, options: WorkerOptions = {}): Promise<Worker<T>> {
    const resolved = resolveWorkerOptions(options);
    const blocking = await queue.connection.duplicate('echo-worker-wake');
    const worker = new Worker(new WorkerRuntime(queue, resolved, blocking), handler);
    worker.#rt.start(resolved.concurrency, () => worker.#slot());
    return worker;
  }

  /** A snapshot of this worker's counters. */
  stats(): Readonly<WorkerStats> {
    return { ...this.#rt.stats };
  }

  /**
   * The error that stopped this worker by itself (the store's fence changed to another major, auth
   * was refused, or the queue's connection was closed); `undefined` while healthy.
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
      if (job) {
        // Found work: there may be more, so pass the wake on before running this one. A job that
        // arrives after close() began still runs: it is leased to us.
        rt.idle.wakeOne();
        next = this.#run(job);
        continue;
      }
      if (!rt.isRunning()) break;
      await rt.idle.wait();
      if (!rt.isRunning()) break;
      next = this.#rounds.take();
    }
    await this.#rounds.drain();
  }

  /** A slot's own claim, for rounds that cannot claim in the fused script (lanes, the gate). */
  async #claim(): Promise<ClaimedJob<T> | undefined> {
    const o = this.options;
    if (o.respectConcurrencyGate && (await this.queue.isMaxed())) return undefined;
    const claim = this.#rt.locks.claimOptions;
    return o.source === 'lanes' ? this.queue.laneClaim(o.leaseMs, claim) : this.queue.claim(o.leaseMs, claim);
  }

  /**
   * Runs the handler, hands its verdict to the round of this turn and answers the next job: a
   * success and the next claim travel in one script; a failure settles on its own.
   */
  async #run(job: ClaimedJob<T>): Promise<ClaimedJob<T> | undefined> {
    const context = jobContext(this.#rt, job);
    let result: unknown;
    let failure: { reason: unknown } | undefined;
    try {
      result = await this.#handler(job, context);
    } catch (reason) {
      failure = { reason };
    }
    failure ??= unencodable(result);
    const settling = failure ? this.#rounds.fail(job, failure.reason) : this.#rounds.complete(job, result);
    void settling.then(() => this.#rt.locks.untrack(job));
    if (!this.#rt.isRunning()) return undefined;
    return this.#rounds.take();
  }

  /**
   * Stops claiming, lets running handlers finish (up to `closeTimeoutMs`, then fires their cancel
   * tokens), and closes the wake connection. Idempotent; the queue's connection stays open.
   */
  close(): Promise<void> {
    return this.#rt.close();
  }
}
