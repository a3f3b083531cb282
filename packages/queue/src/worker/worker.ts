import { InvalidArgumentError } from '@echo/protocol/queue';
import { JobSlots, type Handler } from './job-slots.js';
import { PauseGate } from './pause-gate.js';
import { WorkerRuntime, type LeaseSource } from './runtime.js';
import { WorkerShell, shellParts } from './shell.js';
import { checkWorkerArguments, checkWorkerOptions } from './strict-options.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './worker-options.js';

export { jobContext, type DelayUntil, type JobContext } from './job-context.js';
export type { Handler } from './job-slots.js';

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
export class Worker<T = unknown> extends WorkerShell<T> {
  /** The options in force, defaults applied. */
  readonly options: ResolvedWorkerOptions;
  readonly #rt: WorkerRuntime<T>;

  private constructor(rt: WorkerRuntime<T>, handler: Handler<T>) {
    const gate = new PauseGate();
    const slots = new JobSlots(rt, gate, handler);
    super(shellParts(rt, gate, () => slots.slot()));
    this.options = rt.options;
    this.#rt = rt;
  }

  /** How many jobs this worker runs at once now (`options.concurrency` until {@link setConcurrency}). */
  get concurrency(): number {
    return this.#rt.concurrency;
  }

  /**
   * [TS] Changes how many jobs this worker runs at once, from now on. Raising it starts the new
   * slots at once; lowering it lets running jobs finish, and the slots past the new count take no
   * further job. Before `run()` it sets the count the worker starts with.
   * @throws InvalidArgumentError unless `concurrency` is an integer >= 1; nothing changes then.
   */
  setConcurrency(concurrency: number): void {
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new InvalidArgumentError('concurrency', 'must be an integer >= 1');
    this.#rt.setConcurrency(concurrency);
  }

  /**
   * Starts a worker on `queue` (a queue opened by `Queue.open`; the worker reads only its
   * `leases()` and `maintenance()` handles). It opens one extra connection for the blocking wake
   * read; claims and settlements share the queue's connection.
   * @throws InvalidArgumentError for a bad option, UnknownOptionError for an option it does not
   * know, before anything starts.
   */
  static async start<T>(queue: LeaseSource<T>, handler: Handler<T>, options: WorkerStartOptions = {}): Promise<Worker<T>> {
    checkWorkerArguments('Worker.start', queue, handler);
    checkWorkerOptions(options);
    const resolved = resolveWorkerOptions(options);
    const wake = await queue.leases().openWake('echo-worker-wake');
    return WorkerShell.boot(new Worker(new WorkerRuntime(queue, resolved, wake), handler), options.autorun);
  }
}
