import type { ClaimedJob } from '../core/job.js';
import { JobTimeoutError } from './errors.js';
import { jobContext, type JobContext, type RunState } from './job-context.js';
import { jobSettled, jobSettledAs, jobStarted } from './job-hooks.js';
import { processTraced, tracedRun } from './job-trace.js';
import { DrainWatch } from './drain-watch.js';
import { LaneFeed } from './lane-feed.js';
import type { PauseGate } from './pause-gate.js';
import { unencodable } from './result-encoding.js';
import { Rounds, type CompletionSink } from './rounds.js';
import type { WorkerRuntime } from './runtime.js';
import type { SettleOutcome } from './partition.js';

/**
 * Runs one job. Return a value to complete it (the value feeds a flow parent); throw to retry it
 * (`UnrecoverableError` dead-letters it at once); or call `context.moveToDelayed` to step it.
 */
export type Handler<T> = (job: ClaimedJob<T>, context: JobContext) => unknown;

/**
 * The slot loop of a one-job-at-a-time worker: each slot claims a job, runs the handler on it and
 * hands its verdict to the round of this turn, which completes it and claims the slot's next job
 * in one script.
 */
export class JobSlots<T> implements CompletionSink<T> {
  readonly #rt: WorkerRuntime<T>;
  readonly #gate: PauseGate;
  readonly #handler: Handler<T>;
  readonly #rounds: Rounds<T>;
  /** Weighted lane claims and their spare jobs, for `source: 'lanes'`. */
  readonly #lanes: LaneFeed<T> | undefined;
  /** Fires `drained` once the worker has run out of work (see {@link DrainWatch}). */
  readonly #drain: DrainWatch;

  constructor(rt: WorkerRuntime<T>, gate: PauseGate, handler: Handler<T>) {
    this.#rt = rt;
    this.#gate = gate;
    this.#handler = handler;
    this.#rounds = new Rounds(rt, gate, () => this.#claim(), this);
    this.#lanes = rt.options.source === 'lanes' ? new LaneFeed(rt) : undefined;
    rt.onRelease(() => this.#release());
    this.#drain = new DrainWatch(() => rt.events.fire('drained', undefined), () => this.#open(), () => this.#rounds.held + (this.#lanes?.held ?? 0));
  }

  /** One slot's loop: claim, run, settle with the next claim, park when idle. */
  async slot(): Promise<void> {
    const rt = this.#rt;
    // A worker paused before it ran claims nothing, not even its first job.
    await this.#gate.wait(rt.whenClosing());
    let next = rt.isRunning() ? this.#take() : Promise.resolve(undefined);
    for (;;) {
      let job: ClaimedJob<T> | undefined;
      try {
        job = await next;
      } catch (error) {
        if (!rt.isRunning() || rt.report(error)) break;
        job = undefined;
      }
      // Fewer slots are wanted (setConcurrency): this one ends between jobs, holding none.
      if (job === undefined && rt.isRunning() && rt.retire()) return;
      // Spares (of a weighted lane claim, or claimed ahead) are leased to us.
      if (job === undefined && this.#open()) job = this.#lanes?.spare() ?? this.#rounds.spare();
      if (job && !this.#open()) {
        // A claim sent before pause() or close() landed after it: no handler starts on it here.
        rt.giveBacks.add([job]);
        this.#release();
        job = undefined;
      }
      if (job && !rt.locks.fresh(job)) {
        // The claim's reply came too late: the lease may be over and the job run elsewhere.
        rt.giveUp(job);
        next = this.#open() ? this.#take() : Promise.resolve(undefined);
        continue;
      }
      if (job) {
        this.#drain.started();
        // Found work: there may be more, so pass the wake on before running this one.
        rt.idle.wakeOne();
        next = this.#run(job);
        continue;
      }
      if (!rt.isRunning()) {
        // A round that left before close() may still bring jobs: they go back, not to a handler.
        await this.#rounds.drain();
        this.#release();
        break;
      }
      await rt.idle.wait();
      if (rt.isRunning() && rt.retire()) {
        // The wake this slot took is passed on: the slot that stays may find the work it announced.
        rt.idle.wakeOne();
        return;
      }
      // Woken for a spare a round brought (never started while paused: it went back then).
      const spare = this.#open() ? this.#rounds.spare() : undefined;
      if (spare !== undefined) {
        next = Promise.resolve(spare);
        continue;
      }
      // A paused worker waits for resume (or close) before it claims again.
      await this.#gate.wait(rt.whenClosing());
      next = rt.isRunning() ? this.#take() : Promise.resolve(undefined);
    }
    await this.#rounds.drain();
    this.#release();
  }

  /** Asks this turn's round for a job, watched for `drained`. */
  #take(): Promise<ClaimedJob<T> | undefined> {
    return this.#drain.asking(this.#rounds.take(), (job) => job === undefined);
  }

  /** True while a handler may start here: running and not paused. */
  #open(): boolean {
    return this.#rt.isRunning() && !this.#gate.paused;
  }

  /** Gives back every job held ahead of the handlers (pause or close): no handler starts on them. */
  #release(): void {
    this.#rounds.releaseSpares();
    if (this.#lanes) this.#rt.giveBacks.add(this.#lanes.takeAll());
  }

  /** A slot's own claim, for rounds that cannot claim in the fused script (lanes, the gate). */
  async #claim(): Promise<ClaimedJob<T> | undefined> {
    const o = this.#rt.options;
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
    jobStarted(this.#rt.queue, job);
    const started = performance.now();
    try {
      result = processTraced() ? await tracedRun(this.#rt.queue, [job], false, () => this.#call(job, context)) : await this.#call(job, context);
    } catch (reason) {
      failure = { reason };
    }
    state.over = true;
    this.#rounds.ran(performance.now() - started);
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
      jobSettled(this.#rt.queue, job, failure, verdict);
      settling = verdict.then((outcome) => {
        if (outcome === 'dead') this.#toParentElsewhere(job);
        if (outcome === 'scheduled' || outcome === 'dead') events.fire('failed', { job, error: reason, outcome });
      });
    } else {
      // The common path: the round tells completed() how it went; no promise or closure per job.
      this.#rounds.complete(job, result);
      return this.#next();
    }
    const done = (): void => {
      this.#settled(job);
    };
    void settling.then(done, done);
    return this.#next();
  }

  /** A success handed to {@link Rounds.complete} settled: its verdict hook, its event, and the job let go. */
  completed(job: ClaimedJob<T>, result: unknown, outcome: SettleOutcome): void {
    jobSettledAs(this.#rt.queue, job, undefined, outcome);
    if (outcome === 'ok') this.#toParentElsewhere(job);
    if (outcome === 'ok') this.#rt.events.fire('completed', { job, result });
    this.#settled(job);
  }

  /** A flow child whose parent lives in another queue left its signal in this queue's outbox: deliver it now. */
  #toParentElsewhere(job: ClaimedJob<T>): void {
    if (job.parent !== undefined && job.parent.queue !== this.#rt.queue) this.#rt.deliverSoon();
  }

  #settled(job: ClaimedJob<T>): void {
    this.#rt.locks.untrack(job);
    this.#drain.settled();
  }

  /** The next job for a slot whose handler just finished: none once paused or closing. */
  #next(): Promise<ClaimedJob<T> | undefined> | undefined {
    if (!this.#rt.isRunning() || this.#gate.paused || this.#rt.surplus()) return undefined;
    return this.#take();
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
}
