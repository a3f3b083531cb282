import type { Connection} from '@echo/protocol';
import { ConnectionLostError, GoneError, StaleError, type JobId } from '@echo/protocol';
import { backoffDelay } from './backoff.js';
import { CancelToken } from './cancel.js';
import { publishEvent } from './events.js';
import { IdleSlots } from './idle.js';
import type { ClaimedJob } from './job.js';
import { LockPlane } from './lock-plane.js';
import { Pump } from './pump.js';
import type { Queue } from './queue.js';
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

/** Counters a worker keeps about its own work. */
export interface WorkerStats {
  completed: number;
  retried: number;
  dead: number;
  /** Settlements refused because the lease was lost (reaped and re-claimed, or removed). */
  lost: number;
}

/**
 * Leases jobs from one queue and runs a handler on each, up to `concurrency` at once. Leases are
 * extended while handlers run; a failure is retried along the backoff curve and dead-lettered at
 * `maxAttempts` with `last_error` kept. An idle worker parks on the queue's wake list: no polling.
 * A built-in pump promotes due jobs, recovers expired leases and fires repeats, so nothing else has
 * to run beside it.
 */
export class Worker<T = unknown> {
  readonly queue: Queue<T>;
  readonly options: ResolvedWorkerOptions;
  readonly #handler: Handler<T>;
  readonly #blocking: Connection;
  readonly #idle = new IdleSlots();
  readonly #locks: LockPlane;
  readonly #pump: Pump;
  readonly #stats: WorkerStats = { completed: 0, retried: 0, dead: 0, lost: 0 };
  readonly #slots: Promise<void>[] = [];
  #parker: Promise<void> | undefined;
  #running = true;
  #closing: Promise<void> | undefined;

  private constructor(queue: Queue<T>, handler: Handler<T>, options: ResolvedWorkerOptions, blocking: Connection) {
    this.queue = queue;
    this.#handler = handler;
    this.options = options;
    this.#blocking = blocking;
    const onError = (error: unknown): void => options.onError(error);
    const erased = queue as unknown as Queue;
    this.#locks = new LockPlane(erased, { leaseMs: options.leaseMs, extendEveryMs: options.extendEveryMs, markers: options.lockMarkers, onError });
    this.#pump = new Pump(erased, {
      stalled: options.stalled,
      onError,
      onStalled: (recovered, dead) => {
        if (!options.publishEvents) return;
        for (const id of recovered) publishEvent(queue.connection, queue.keys.events, 'stalled', id as JobId, { outcome: 'recovered' }, onError);
        for (const id of dead) publishEvent(queue.connection, queue.keys.events, 'stalled', id as JobId, { outcome: 'dead' }, onError);
      },
    });
  }

  /**
   * Starts a worker on `queue`. It opens one extra connection for the blocking wake read; claims
   * and settlements share the queue's connection.
   * @throws InvalidArgumentError for a bad option, before anything starts.
   */
  static async start<T>(queue: Queue<T>, handler: Handler<T>, options: WorkerOptions = {}): Promise<Worker<T>> {
    const resolved = resolveWorkerOptions(options);
    const blocking = await queue.connection.duplicate('echo-worker-wake');
    const worker = new Worker(queue, handler, resolved, blocking);
    worker.#begin();
    return worker;
  }

  /** A snapshot of this worker's counters. */
  stats(): Readonly<WorkerStats> {
    return { ...this.#stats };
  }

  /** Jobs currently running here. */
  get running(): number {
    return this.#locks.size;
  }

  #begin(): void {
    if (this.options.maintenanceMs > 0) this.#pump.start(this.options.maintenanceMs);
    for (let i = 0; i < this.options.concurrency; i++) this.#slots.push(this.#slot());
    this.#parker = this.#park();
  }

  /** Read through a method so the check after an await is not narrowed away. */
  #stopping(): boolean {
    return !this.#running;
  }

  async #slot(): Promise<void> {
    while (this.#running) {
      let job: ClaimedJob<T> | undefined;
      try {
        job = await this.#claim();
      } catch (error) {
        if (this.#stopping()) return;
        this.options.onError(error);
        await this.#idle.wait();
        continue;
      }
      if (!job) {
        await this.#idle.wait();
        continue;
      }
      // Found work: there may be more, so pass the wake on before running this one.
      this.#idle.wakeOne();
      await this.#run(job);
    }
  }

  async #claim(): Promise<ClaimedJob<T> | undefined> {
    if (this.options.respectConcurrencyGate && (await this.queue.isMaxed())) return undefined;
    return this.options.source === 'lanes' ? this.queue.laneClaim(this.options.leaseMs) : this.queue.claim(this.options.leaseMs);
  }

  /** The one blocking read: wakes one parked slot per token or per beat. */
  async #park(): Promise<void> {
    const seconds = (this.options.blockMs / 1000).toFixed(3);
    while (this.#running) {
      await this.#idle.whenSomeoneWaits();
      if (this.#stopping()) return;
      try {
        await this.#blocking.command('BLPOP', this.queue.keys.wake, seconds);
      } catch (error) {
        if (this.#stopping()) return;
        this.options.onError(error);
        await sleep(Math.min(this.options.blockMs, 250));
      }
      this.#idle.wakeOne();
    }
  }

  async #run(job: ClaimedJob<T>): Promise<void> {
    const cancel = new CancelToken();
    const erased = job as ClaimedJob<unknown>;
    this.#locks.track(erased, cancel);
    const context: JobContext = {
      cancel,
      signal: cancel.signal,
      progress: (value) => this.queue.updateProgress(job.id, value),
      log: (line) => this.queue.addLog(job.id, line),
    };
    let result: unknown;
    let failure: { reason: unknown } | undefined;
    try {
      result = await this.#handler(job, context);
    } catch (reason) {
      failure = { reason };
    }
    try {
      if (failure) await this.#fail(job, failure.reason);
      else await this.#succeed(job, result);
    } finally {
      this.#locks.untrack(erased);
    }
  }

  async #succeed(job: ClaimedJob<T>, result: unknown): Promise<void> {
    const value = result === undefined ? undefined : typeof result === 'string' ? result : JSON.stringify(result);
    const ok = await this.#settle(job, () => this.queue.complete(job, value), true);
    if (!ok) return;
    this.#stats.completed++;
    if (this.options.publishEvents) publishEvent(this.queue.connection, this.queue.keys.events, 'completed', job.id, {}, this.options.onError);
  }

  async #fail(job: ClaimedJob<T>, reason: unknown): Promise<void> {
    const text = reason instanceof Error ? reason.message : String(reason);
    const delayMs = backoffDelay(this.options.backoff, Math.max(job.attempts, 1));
    const verdict: { outcome: 'scheduled' | 'dead' } = { outcome: 'scheduled' };
    const ok = await this.#settle(
      job,
      async () => {
        verdict.outcome = await this.queue.retry(job, delayMs, this.options.maxAttempts, text);
      },
      false,
    );
    if (!ok) return;
    const outcome = verdict.outcome;
    if (outcome === 'dead') this.#stats.dead++;
    else this.#stats.retried++;
    if (this.options.publishEvents) publishEvent(this.queue.connection, this.queue.keys.events, 'failed', job.id, { outcome }, this.options.onError);
  }

  /**
   * Runs a settlement, surviving a socket drop: the call is sent once more after the reconnect.
   * A refused settlement means the lease was lost; after a drop, `gone` on a completion means the
   * first attempt landed. Answers whether the verdict stands.
   */
  async #settle(job: ClaimedJob<T>, send: () => Promise<void>, completing: boolean): Promise<boolean> {
    try {
      await send();
      return true;
    } catch (error) {
      if (error instanceof ConnectionLostError) {
        try {
          await send();
          return true;
        } catch (again) {
          if (completing && again instanceof GoneError) return true;
          return this.#lost(job, again);
        }
      }
      return this.#lost(job, error);
    }
  }

  #lost(job: ClaimedJob<T>, error: unknown): false {
    if (error instanceof StaleError || error instanceof GoneError) this.#stats.lost++;
    this.options.onError(error, job);
    return false;
  }

  /**
   * Stops claiming, lets running handlers finish (up to `closeTimeoutMs`, then fires their cancel
   * tokens and stops waiting; their leases lapse and the reaper hands them on), and closes the
   * wake connection. Idempotent. The queue's own connection stays open.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#running = false;
    this.#idle.releaseAll();
    await this.#blocking.close({ immediate: true });
    const drained = Promise.all(this.#slots).then(() => true);
    const patience = sleep(this.options.closeTimeoutMs).then(() => false);
    if (!(await Promise.race([drained, patience]))) this.#locks.cancelAll('worker closing');
    await Promise.race([drained, sleep(1000)]);
    this.#locks.stop();
    await this.#pump.stop();
    await this.#parker;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
