import type { ClaimedJob } from '../core/job.js';
import type { PauseGate } from './pause-gate.js';
import { Prefetch } from './prefetch.js';
import type { WorkerRuntime } from './runtime.js';
import { completeAndClaimJobs, completeJob, completeJobs, failJob, resultText } from './settle.js';
import type { SettleOutcome } from './partition.js';

interface Want<T> {
  readonly resolve: (job: ClaimedJob<T> | undefined) => void;
  readonly reject: (error: unknown) => void;
}

interface Done<T> {
  readonly job: ClaimedJob<T>;
  /** The handler's result text, when it left one: kept on a retained row and carried by the event. */
  readonly result: string | undefined;
  /** The handler's return value itself, handed back to the sink with the outcome. */
  readonly value: unknown;
}

/**
 * Told how each completion handed to {@link Rounds.complete} settled, once its round answered. One
 * object for the whole worker, so a completion allocates no promise or closure of its own.
 */
export interface CompletionSink<T> {
  completed(job: ClaimedJob<T>, value: unknown, outcome: SettleOutcome): void;
}

/**
 * Coalesces a worker's traffic per event-loop turn. Slots whose handlers finished in the same turn
 * hand their plain successes here, and slots wanting work ask here; at the end of the turn one
 * script completes every success and claims a job for every slot that asked (`complete_claim`), so a
 * busy worker pays one round trip per round, not two per job. Handlers still see one job each;
 * failures, delays and flow children settle one by one outside it.
 *
 * A fused round also claims ahead ({@link Prefetch}): a slot that wants work takes a spare, handed
 * out only after the round that settles its last job has left, so the next round is on the wire
 * while the handlers run, and Node and Redis work at the same time.
 *
 * Where the fused script does not apply (lane claims, the concurrency gate) the round is the
 * successes in one `complete_batch` plus the slots' own claims.
 */
export class Rounds<T> {
  readonly #rt: WorkerRuntime<T>;
  readonly #gate: PauseGate;
  /** True when a round may claim with `complete_claim` (flat source, no gate to ask first). */
  readonly #fused: boolean;
  /** The claim a slot makes on its own when the round is not fused. */
  readonly #claimOne: () => Promise<ClaimedJob<T> | undefined>;
  readonly #sink: CompletionSink<T>;
  #done: Done<T>[] = [];
  #wants: Want<T>[] = [];
  /**
   * Wants sent in fused rounds not answered yet, oldest first. Any round's reply serves them, not
   * only the round that carried them: a reply that brings spares while the slots wait on a later
   * round starts their handlers at once, instead of leaving the spares idle until that round lands.
   */
  readonly #waiting = new Set<Want<T>>();
  #scheduled = false;
  readonly #inflight = new Set<Promise<void>>();
  readonly #ahead: Prefetch<T>;

  constructor(rt: WorkerRuntime<T>, gate: PauseGate, claimOne: () => Promise<ClaimedJob<T> | undefined>, sink: CompletionSink<T>) {
    this.#rt = rt;
    this.#gate = gate;
    this.#fused = rt.options.source === 'flat' && !rt.options.respectConcurrencyGate;
    this.#claimOne = claimOne;
    this.#sink = sink;
    this.#ahead = new Prefetch(rt.locks, () => rt.concurrency);
    // A fused worker claims one job at a time: the wake read may claim the woken slot's job itself.
    if (this.#fused) rt.claimOnWake({ open: () => rt.isRunning() && !gate.paused, adopt: (job) => this.#adoptWoken(job) });
  }

  /** A job claimed behind the wake read, for the slot it wakes; given back when paused or closing since. */
  #adoptWoken(job: ClaimedJob<T>): void {
    this.#ahead.adopt(job);
    if (!this.#rt.isRunning() || this.#gate.paused) this.releaseSpares();
  }

  /** A job claimed ahead, for a slot that wants work: it is leased to us. */
  spare(): ClaimedJob<T> | undefined {
    return this.#ahead.take();
  }

  /** How many jobs are held ahead of the slots. */
  get held(): number {
    return this.#ahead.held;
  }

  /** Gives back every job held ahead (the worker paused or is closing: no handler starts). */
  releaseSpares(): void {
    this.#rt.giveBacks.add(this.#ahead.takeAll());
  }

  /** A handler ran for `ms`: the prefetch asks ahead only while handlers are short. */
  ran(ms: number): void {
    this.#ahead.ran(ms);
  }

  /**
   * Queues a plain job's completion for this turn's round; the sink hears how it settled. A flow
   * child is completed alone at once: only `complete` feeds its parent with the handler's result.
   * The queued completion is not tracked on its own: {@link drain} waits for the queue to be sent,
   * and the round that carries it is tracked.
   */
  complete(job: ClaimedJob<T>, result: unknown): void {
    if (job.parent !== undefined) {
      void this.#track(completeJob(this.#rt, job, result)).then(
        (outcome) => this.#sink.completed(job, result, outcome),
        () => this.#sink.completed(job, result, 'stale'),
      );
      return;
    }
    this.#done.push({ job, result: resultText(this.#rt, job, result), value: result });
    this.#schedule();
  }

  /** Retries a failed job along the backoff curve, on its own (failures are rare and carry a reason each). */
  fail(job: ClaimedJob<T>, reason: unknown): Promise<SettleOutcome> {
    return this.#track(failJob(this.#rt, job, reason));
  }

  /** Asks for the next job in this turn's round; answers `undefined` when none was claimable. */
  take(): Promise<ClaimedJob<T> | undefined> {
    return new Promise((resolve, reject) => {
      this.#wants.push({ resolve, reject });
      this.#schedule();
    });
  }

  /** Waits for every settlement sent or queued (on close). */
  async drain(): Promise<void> {
    while (this.#inflight.size > 0 || this.#done.length > 0) {
      // Completions queued for this turn's round are sent by its flush, which tracks the round.
      if (this.#inflight.size === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      else await Promise.all(this.#inflight);
    }
  }

  #track<R>(p: Promise<R>): Promise<R> {
    const settled = p.then(() => undefined, () => undefined);
    this.#inflight.add(settled);
    void settled.then(() => this.#inflight.delete(settled));
    return p;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate runs after the I/O callbacks of this turn: every slot whose handler finished on
    // the same reply has queued its success and its want by then.
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const done = this.#done;
    const wants = this.#wants;
    this.#done = [];
    this.#wants = [];
    const rt = this.#rt;
    // A closing or paused worker claims nothing: its slots hear "no job" and park (or wait for resume).
    const open = rt.isRunning() && !this.#gate.paused;
    if (!open) for (const want of wants.splice(0)) want.resolve(undefined);
    if (!this.#fused) {
      if (done.length > 0) void this.#track(this.#completeAll(done));
      for (const want of wants) this.#claimOne().then(want.resolve, want.reject);
      return;
    }
    const served = wants.splice(0, Math.min(wants.length, this.#ahead.held));
    const ahead = open ? this.#ahead.wanted(served.length) : 0;
    const round = wants.length > 0 || done.length > 0 || ahead > 0 ? this.#fusedRound(done, wants, ahead) : undefined;
    // The round has left: the spares' handlers now run while it is on the wire.
    for (const want of served) want.resolve(this.#ahead.take());
    await round;
  }

  async #fusedRound(done: readonly Done<T>[], wants: readonly Want<T>[], ahead: number): Promise<void> {
    this.#ahead.asked(ahead);
    for (const want of wants) this.#waiting.add(want);
    const sent = performance.now();
    const round = await this.#track(completeAndClaimJobs(this.#rt, done.map((d) => d.job), wants.length + ahead, resultsOf(done)));
    // Every job claimed joins the spares behind those of earlier rounds, and the waiting slots
    // take the oldest first: jobs run in the order they were claimed, as without prefetch.
    this.#ahead.answered(ahead, performance.now() - sent, round.error === undefined ? round.claimed : []);
    for (const d of done) this.#sink.completed(d.job, d.value, round.outcomes.get(d.job.id) ?? 'stale');
    // Paused or closing since the round left: what it claimed starts nowhere here, so it goes back,
    // and the slots that asked hear "no job".
    if (!this.#rt.isRunning() || this.#gate.paused) this.releaseSpares();
    for (const want of this.#waiting) {
      const job = this.#ahead.take();
      if (job === undefined) break;
      this.#waiting.delete(want);
      want.resolve(job);
    }
    // This round's wants that no reply reached: nothing claimable now (or the call failed).
    for (const want of wants) {
      if (!this.#waiting.delete(want)) continue;
      if (round.error !== undefined) want.reject(round.error);
      else want.resolve(undefined);
    }
    // A slot that parked meanwhile would not see the spares: wake one, the relay passes it on.
    if (this.#ahead.held > 0) this.#rt.idle.wakeOne();
    if (round.limitedMs > 0) this.#rt.idle.wakeAfter(round.limitedMs);
  }

  async #completeAll(done: readonly Done<T>[]): Promise<void> {
    const outcomes = await completeJobs(this.#rt, done.map((d) => d.job), resultsOf(done));
    for (const d of done) this.#sink.completed(d.job, d.value, outcomes.get(d.job.id) ?? 'stale');
  }
}

/** The result texts of a round's successes, by job id. */
function resultsOf<T>(done: readonly Done<T>[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of done) if (d.result !== undefined) out.set(d.job.id, d.result);
  return out;
}
