import { deferred, type Deferred, type JobId } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';
import { armBatchTimeouts } from './batch-timeouts.js';
import { jobContext, type JobContext, type RunState } from './job-context.js';
import { batchSettled, jobsStarted } from './job-hooks.js';
import { processTraced, tracedRun } from './job-trace.js';
import { partitionBatch, type BatchPartition, type BatchVerdict, type SettleOutcome } from './partition.js';
import type { PauseGate } from './pause-gate.js';
import { aheadPays, mean } from './prefetch.js';
import { CancelToken } from './cancel.js';
import { DrainWatch } from './drain-watch.js';
import { sleep, type WorkerRuntime } from './runtime.js';
import { completeAndClaimJobs, completeJobs, delayJob, failJob } from './settle.js';
import { decideBatch } from './shaping.js';
import { localNow } from '../core/clock.js';

/**
 * Verdicts per member id; a member missing here is retried as `missing verdict`. The single word
 * `'ok'` completes every member.
 */
export type BatchVerdicts = 'ok' | ReadonlyMap<string, BatchVerdict> | Readonly<Record<string, BatchVerdict>>;

/** Runs one batch; return a verdict per member, or throw to retry every member with the reason. */
export type BatchHandler<T> = (jobs: readonly ClaimedJob<T>[], contexts: ReadonlyMap<JobId, JobContext>) => Promise<BatchVerdicts> | BatchVerdicts;

/** Shaping (queue.md §7): wait for `minSize` pending jobs, or `timeoutMs` with at least one. */
export interface BatchShape {
  readonly minSize: number;
  readonly timeoutMs: number;
  readonly pollMs?: number;
}

/** What the batch slots take besides the runtime: the batch size, shaping and the per-batch hook. */
export interface BatchSlotOptions {
  readonly size: number;
  readonly shape: BatchShape | undefined;
  readonly onBatch: ((partition: BatchPartition<JobId>) => void) | undefined;
}

/**
 * The slot loop of a batch worker: each slot claims up to `size` jobs in one script, hands them to
 * the handler together and settles each member with its own token.
 *
 * A fused slot (flat source, no shaping) also holds a batch ahead while batches are short: its
 * first claim takes two batches, and each settlement claims the batch after next, so the handler
 * runs the batch in hand while the round settling the last one is on the wire.
 */
export class BatchSlots<T> {
  readonly #rt: WorkerRuntime<T>;
  readonly #gate: PauseGate;
  readonly #handler: BatchHandler<T>;
  readonly #size: number;
  readonly #shape: BatchShape | undefined;
  readonly #onBatch: BatchSlotOptions['onBatch'];
  /** Each running slot's carried batches, so a pause or close can give them back at once. */
  readonly #carried = new Set<Promise<ClaimedJob<T>[]>[]>();
  /** Batch settlements sent but not yet answered; close() waits for them. */
  readonly #settling = new Set<Promise<void>>();
  /** Fires `drained` once the worker has run out of work (see {@link DrainWatch}). */
  readonly #drain: DrainWatch;
  /** Running means of a batch's handler time and of a fused round's round trip, in ms. */
  #handlerMs = 0;
  #roundMs = 0;

  constructor(rt: WorkerRuntime<T>, gate: PauseGate, handler: BatchHandler<T>, options: BatchSlotOptions) {
    this.#rt = rt;
    this.#gate = gate;
    this.#handler = handler;
    this.#size = options.size;
    this.#shape = options.shape;
    this.#onBatch = options.onBatch;
    rt.onRelease(() => this.#release());
    this.#drain = new DrainWatch(() => rt.events.fire('drained', undefined), () => this.#open(), () => this.#carriedCount());
  }

  /** One slot's loop: claim a batch, run it, settle it (with the next claim when it may ride along). */
  async slot(): Promise<void> {
    const rt = this.#rt;
    let since = localNow();
    // Start on the next turn: a worker paused right after start() claims nothing, not even its first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    /**
     * The next batches, oldest first: claimed by the last rounds together with their settlements,
     * or held ahead. Leased to us; given back, not run, once paused or closing.
     */
    const carried: Promise<ClaimedJob<T>[]>[] = [];
    this.#carried.add(carried);
    for (;;) {
      try {
        let jobs = await carried.shift();
        if (jobs === undefined) {
          // A paused worker waits for resume (or close) before it claims again.
          await this.#gate.wait(rt.whenClosing());
          if (!rt.isRunning()) break;
          if (this.#shape && !(await this.#ready(since))) continue;
          jobs = await this.#drain.asking(this.#claim(), (claimed) => claimed.length === 0);
          const ahead = this.#ahead(jobs);
          if (ahead.length > 0) carried.push(Promise.resolve(ahead));
        }
        if (jobs.length > 0 && !this.#open()) {
          // Claimed before pause() or close(), landed after: no handler starts on it here.
          rt.giveBacks.add(jobs);
          this.#release();
          continue;
        }
        // Members whose claim reply came too late are given up: their leases may be over.
        jobs = this.#fresh(jobs);
        if (jobs.length === 0) {
          if (carried.length > 0) continue;
          if (!rt.isRunning()) break;
          await rt.idle.wait();
          since = localNow();
          continue;
        }
        this.#drain.started();
        rt.idle.wakeOne();
        const { next } = await this.#run(jobs);
        if (next) carried.push(this.#drain.asking(next, (claimed) => claimed.length === 0));
        since = localNow();
      } catch (error) {
        if (!rt.isRunning() || rt.report(error)) break;
        await rt.idle.wait();
      }
    }
    await Promise.all(this.#settling);
    // Batches still carried (a settlement round that claimed the next one) go back as they land.
    this.#releaseCarried(carried);
    this.#carried.delete(carried);
  }

  /** True while a handler may start here: running and not paused. */
  #open(): boolean {
    return this.#rt.isRunning() && !this.#gate.paused;
  }

  /** How many batches the slots carry ahead, answered or not. */
  #carriedCount(): number {
    let n = 0;
    for (const carried of this.#carried) n += carried.length;
    return n;
  }

  /** Gives back every batch the slots carry ahead (pause or close): no handler starts on them. */
  #release(): void {
    for (const carried of this.#carried) this.#releaseCarried(carried);
  }

  #releaseCarried(carried: Promise<ClaimedJob<T>[]>[]): void {
    // A carried claim that failed claimed nothing: there is nothing to give back.
    for (const batch of carried.splice(0)) batch.then((jobs) => this.#rt.giveBacks.add(jobs), () => undefined);
  }

  /** The members with enough lease left to run; the others are given up (see `LockPlane.fresh`). */
  #fresh(jobs: ClaimedJob<T>[]): ClaimedJob<T>[] {
    if (jobs.every((job) => this.#rt.locks.fresh(job))) return jobs;
    return jobs.filter((job) => {
      if (this.#rt.locks.fresh(job)) return true;
      this.#rt.giveUp(job);
      return false;
    });
  }

  /** Watches the pending depth without claiming; true at the flush moment. */
  async #ready(since: number): Promise<boolean> {
    const shape = this.#shape;
    if (!shape) return true;
    const depth = await this.#rt.leases.pending();
    this.#drain.found(depth > 0);
    const decision = decideBatch(depth, localNow() - since, shape.minSize, shape.timeoutMs);
    if (decision.action === 'flush') return true;
    if (depth === 0) await this.#rt.idle.wait();
    else await sleep(shape.pollMs ?? Math.max(5, Math.floor(shape.timeoutMs / 4)));
    return false;
  }

  /** True when this slot settles with the next claim riding along, and so may hold a batch ahead. */
  #fused(): boolean {
    return this.#rt.isRunning() && !this.#gate.paused && this.#shape === undefined && this.#rt.options.source === 'flat';
  }

  #claim(): Promise<ClaimedJob<T>[]> {
    const o = this.#rt.options;
    const claim = this.#rt.locks.claimOptions;
    if (o.source === 'lanes') return this.#rt.leases.laneBatchClaim(o.leaseMs, { ...claim, size: this.#size });
    const size = this.#fused() && aheadPays(this.#handlerMs, this.#roundMs) ? 2 * this.#size : this.#size;
    return this.#rt.leases.claimBatch(size, o.leaseMs, claim);
  }

  /**
   * Splits off what a claim took beyond one batch: the batch held ahead, tracked by the lock plane
   * (its leases extended) until it runs.
   */
  #ahead(jobs: ClaimedJob<T>[]): ClaimedJob<T>[] {
    if (jobs.length <= this.#size) return [];
    const ahead = jobs.splice(this.#size);
    for (const job of ahead) this.#rt.locks.track(job, new CancelToken());
    return ahead;
  }

  /**
   * Runs the handler and settles the batch. When the next batch may be claimed in the same script
   * (flat source, no shaping, still running), the successes and that claim go as one call, and the
   * next batch is answered as a promise once the handler is done, so the slot can run a batch held
   * ahead while that round is on the wire; otherwise the settlement is left in flight and the
   * caller claims.
   */
  async #run(claimed: readonly ClaimedJob<T>[]): Promise<{ next: Promise<ClaimedJob<T>[]> | undefined }> {
    let jobs = claimed;
    const rt = this.#rt;
    const states = new Map<JobId, RunState>();
    const contexts = new Map(
      jobs.map((job) => {
        const state: RunState = { moved: undefined, over: false };
        states.set(job.id, state);
        return [job.id, jobContext(rt, job, state)] as const;
      }),
    );
    jobsStarted(rt.queue, jobs);
    let verdicts: BatchVerdicts | undefined;
    let thrown: { reason: unknown } | undefined;
    const timers = armBatchTimeouts(rt, jobs, contexts, states);
    const started = performance.now();
    try {
      const run = (): BatchVerdicts | Promise<BatchVerdicts> => this.#handler(jobs, contexts);
      const handled = new Promise<BatchVerdicts>((resolve) => resolve(processTraced() ? tracedRun(rt.queue, jobs, true, run) : run()));
      // The loser of the race must not surface as an unhandled rejection.
      handled.catch(() => undefined);
      verdicts = timers ? await Promise.race([handled, timers.allExpired.then(() => undefined)]) : await handled;
    } catch (reason) {
      thrown = { reason };
    } finally {
      timers?.clear();
    }
    this.#handlerMs = mean(this.#handlerMs, performance.now() - started);
    for (const state of states.values()) state.over = true;
    // Jobs the handler moved itself are settled already: their verdicts are not applied.
    const moved = jobs.filter((job) => states.get(job.id)?.moved !== undefined);
    if (moved.length > 0) {
      await Promise.all(moved.map((job) => states.get(job.id)?.moved ?? Promise.resolve()));
      jobs = jobs.filter((job) => states.get(job.id)?.moved === undefined);
    }
    const next = this.#fused() ? deferred<ClaimedJob<T>[]>() : undefined;
    // A slot awaits its carried batches in order: one rejected while it still awaits an earlier one
    // (or after it stopped, on close) must not surface as an unhandled rejection; the slot that
    // awaits it still gets the error.
    next?.promise.catch(() => undefined);
    const settling = this.#settle(jobs, verdicts, thrown, next).catch((error: unknown) => {
      rt.options.onError(error);
      next?.resolve([]);
    });
    this.#settling.add(settling);
    void settling.finally(() => {
      this.#settling.delete(settling);
      this.#drain.settled();
    });
    return { next: next?.promise };
  }

  async #settle(
    jobs: readonly ClaimedJob<T>[],
    verdicts: BatchVerdicts | undefined,
    thrown: { reason: unknown } | undefined,
    next: Deferred<ClaimedJob<T>[]> | undefined,
  ): Promise<void> {
    const rt = this.#rt;
    const verdictOf = (job: ClaimedJob<T>): BatchVerdict =>
      thrown ? { error: errorText(thrown.reason) } : (lookup(verdicts, job.id) ?? { error: 'missing verdict' });
    const settled = new Map<JobId, { verdict: BatchVerdict; outcome: SettleOutcome }>();
    const ok = jobs.filter((job) => verdictOf(job) === 'ok');
    const rest = jobs.filter((job) => verdictOf(job) !== 'ok');
    // Successes go out as one script, with the next batch's claim when it may ride along; failures
    // and delays are rarer and settle one by one.
    const completing = (next ? this.#completeAndClaim(ok, next) : completeJobs(rt, ok)).then((outcomes) => {
      for (const job of ok) {
        const outcome = outcomes.get(job.id) ?? 'stale';
        rt.locks.untrack(job);
        settled.set(job.id, { verdict: 'ok', outcome });
        if (outcome === 'ok') rt.events.fire('completed', { job, result: undefined });
      }
    });
    const others = rest.map(async (job) => {
      const verdict = verdictOf(job);
      let outcome: SettleOutcome;
      try {
        outcome = typeof verdict === 'object' && 'delay' in verdict ? await delayJob(rt, job, verdict.delay) : await failJob(rt, job, (verdict as { error: string }).error);
      } finally {
        rt.locks.untrack(job);
      }
      settled.set(job.id, { verdict, outcome });
      if ((outcome === 'scheduled' || outcome === 'dead') && typeof verdict === 'object' && 'error' in verdict) {
        rt.events.fire('failed', { job, error: verdict.error, outcome });
      }
    });
    await Promise.all([completing, ...others]);
    batchSettled(rt.queue, jobs, settled);
    this.#onBatch?.(partitionBatch(jobs.map((j) => j.id), settled));
  }

  /** The fused round: completes `ok` and claims the next batch, handed to `next` as soon as it lands. */
  async #completeAndClaim(ok: readonly ClaimedJob<T>[], next: Deferred<ClaimedJob<T>[]>): Promise<Map<string, SettleOutcome>> {
    const sent = performance.now();
    const round = await completeAndClaimJobs(this.#rt, ok, this.#size);
    this.#roundMs = mean(this.#roundMs, performance.now() - sent);
    if (round.error !== undefined) next.reject(round.error);
    else next.resolve(round.claimed);
    if (round.limitedMs > 0) this.#rt.idle.wakeAfter(round.limitedMs);
    return round.outcomes;
  }
}

function lookup(verdicts: BatchVerdicts | undefined, id: string): BatchVerdict | undefined {
  if (verdicts === undefined) return undefined;
  if (verdicts === 'ok') return 'ok';
  if (isMap(verdicts)) return verdicts.get(id);
  return Object.hasOwn(verdicts, id) ? verdicts[id] : undefined;
}

function isMap(verdicts: Exclude<BatchVerdicts, 'ok'>): verdicts is ReadonlyMap<string, BatchVerdict> {
  return verdicts instanceof Map;
}

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
