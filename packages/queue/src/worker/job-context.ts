import { checkTimeBound, InvalidArgumentError, StaleError, strictOptions } from '@echo/protocol/queue';
import { CancelToken } from './cancel.js';
import type { ClaimedJob } from '../core/job.js';
import type { FlowChild, FlowResult } from '../flows/flow-shape.js';
import type { WorkerRuntime } from './runtime.js';
import { delayJob } from './settle.js';
import type { SettleOutcome } from './partition.js';
import { toWallTime } from '../core/clock.js';

/**
 * When a moved job runs again: `{ delayMs }` from the server's now, or `{ at }` (a Date or epoch
 * ms), or a Date. A bare number is refused: BullMQ reads it as a time and we once read it as a
 * delay, so the unit is always named.
 */
export type DelayUntil = { readonly delayMs: number } | { readonly at: Date | number } | Date;

/**
 * What a handler gets besides the job: cancellation and the job's own side channels. Its verbs are
 * functions bound to the job, so they work taken off the context (`async (job, { progress }) => …`).
 */
export interface JobContext {
  /** Fired when the worker closes past its patience, the job's lease was lost, or its `timeoutMs` ran out. */
  readonly cancel: CancelToken;
  /** Aborted together with `cancel`, for APIs that take an `AbortSignal`. */
  readonly signal: AbortSignal;
  /**
   * The latest time (epoch ms, on `Date.now()`'s clock as it reads now) this attempt's lease can
   * end, as the worker knows it: its claim's send time (or its last extension's) plus the lease. The
   * server's deadline is no earlier, so until then no other claim can run the job. The worker keeps
   * the bound on a monotonic clock, so a step of the wall clock moves this answer with `Date.now()`
   * and leaves the time left unchanged.
   */
  readonly leaseUntil: () => number;
  /** Records progress and publishes the `progress` event. */
  readonly progress: (value: string | number) => Promise<void>;
  /** Appends a line to the job's log. */
  readonly log: (line: string) => Promise<number>;
  /**
   * Settles the job as delayed without counting a failure (the next claim runs it again, its
   * attempts kept): a step job's way to wait. `until` names its unit: `{ delayMs: 5000 }` from the
   * server's now, `{ at: Date.now() + 5000 }` (epoch ms or a Date), or a Date. A bare number
   * (BullMQ's `moveToDelayed(timestamp)`) is refused, never guessed. The worker then leaves the job
   * alone when the handler returns or throws; its return value is dropped. Call it at most once,
   * before the handler returns.
   * @throws InvalidArgumentError for a bare number, a bad time or a second move; StaleError when the
   * lease was lost (or the attempt timed out) before the move landed.
   */
  readonly moveToDelayed: (until: DelayUntil) => Promise<void>;
  /**
   * Adds children to this job, which becomes their flow parent (in this queue or others, nested,
   * with the fail-parent / ignore policies of flows). The job stays this handler's: call
   * {@link JobContext.moveToWaitingChildren} to wait for them. Answers the landed children.
   * @throws StaleError when the lease was lost; InvalidArgumentError for a bad flow or a same-queue
   * child id already in use (nothing was added).
   */
  readonly addChildren: (children: readonly FlowChild<unknown>[]) => Promise<FlowResult[]>;
  /**
   * A step job's wait for its children: while any child is open, the job leaves active for
   * `awaiting_children` (fenced by its token, its lease given back) and answers true; the worker
   * then leaves it alone when the handler returns (its return value is dropped), and its handler
   * runs again, as a new claim, once the last child is done (read their results with
   * {@link JobContext.childrenValues}). With no child open it answers false, changes nothing, and the
   * handler goes on. Call it before the handler returns; after a true answer, return.
   * @throws StaleError when the lease was lost; StateError for a lane job; InvalidArgumentError after
   * another move.
   */
  readonly moveToWaitingChildren: () => Promise<boolean>;
  /** The results this job's completed children left, child id → result (their id when none). */
  readonly childrenValues: () => Promise<Record<string, string>>;
  /**
   * [TS] Hands the job back to the queue as if it had not been claimed: it goes back where a claim
   * finds it, first among its equals by priority (it keeps its admission order), no failure
   * counted, its attempts kept (BullMQ's rate-limited job going back to wait). The worker then
   * leaves the job alone when the handler returns or throws. Call it at most once, before the
   * handler returns.
   * @throws InvalidArgumentError after another move; StaleError when the lease was lost (or the
   * attempt timed out) before the job went back.
   */
  readonly giveBack: () => Promise<void>;
}

/** What the worker learns from a run's context: whether the handler settled its own job. */
export interface RunState {
  /** Set once `moveToDelayed`, `moveToWaitingChildren` or `giveBack` moved the job: the settlement the handler asked for. */
  moved: Promise<SettleOutcome> | undefined;
  /** Set when the worker stopped waiting for the handler (it returned, threw or timed out). */
  over: boolean;
}

const checkUntilKeys = strictOptions('moveToDelayed', {
  known: ['delayMs', 'at'],
  hints: { delay: 'a delay is { delayMs } here (ms from now)', timestamp: 'a time is { at } here (a Date or epoch ms)' },
  bounds: { delayMs: 'span', at: 'instant' },
});

/** A whole, non-negative number of ms, or the refusal naming `what`. */
function wholeMs(what: string, value: unknown, meaning: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new InvalidArgumentError(what, `must be ${meaning}`);
  return value;
}

/** The delay (ms) or the time (a Date) a move asks for; refuses a bare number and a bad time. */
export function resolveUntil(until: unknown): number | Date {
  if (typeof until === 'number') {
    throw new InvalidArgumentError('moveToDelayed', 'takes { delayMs } (ms from now) or { at } (a Date or epoch ms), or a Date; a bare number is ambiguous');
  }
  if (until instanceof Date) {
    checkTimeBound('moveToDelayed', 'until', until, 'instant');
    return new Date(wholeMs('moveToDelayed', until.getTime(), 'a valid Date'));
  }
  if (typeof until !== 'object' || until === null) throw new InvalidArgumentError('moveToDelayed', 'takes { delayMs }, { at } or a Date');
  checkUntilKeys(until);
  const has = (key: string): boolean => Object.hasOwn(until, key);
  if (has('delayMs') === has('at')) throw new InvalidArgumentError('moveToDelayed', 'takes exactly one of delayMs and at');
  if ('delayMs' in until) return wholeMs('moveToDelayed.delayMs', until.delayMs, 'a whole, non-negative delay in ms');
  const at: unknown = 'at' in until ? until.at : undefined;
  return new Date(at instanceof Date ? wholeMs('moveToDelayed.at', at.getTime(), 'a valid Date') : wholeMs('moveToDelayed.at', at, 'a Date or whole epoch ms'));
}

/** Builds the per-job context and tracks the job in the lock plane. */
export function jobContext<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, state: RunState = { moved: undefined, over: false }): JobContext {
  const cancel = new CancelToken();
  rt.locks.track(job, cancel);
  return new RunContext(rt, job, state, cancel);
}

/**
 * One attempt's context. A class, not an object literal of closures: a worker builds one per job,
 * and nothing here is allocated per job beyond the instance. Each verb is a getter that hands out a
 * function bound to the context when it is read, so `context.progress(50)` and a destructured
 * `({ progress }) => progress(50)` both work, and a handler pays for a verb only when it uses it.
 */
class RunContext<T> implements JobContext {
  readonly cancel: CancelToken;
  readonly #rt: WorkerRuntime<T>;
  readonly #job: ClaimedJob<T>;
  readonly #state: RunState;

  constructor(rt: WorkerRuntime<T>, job: ClaimedJob<T>, state: RunState, cancel: CancelToken) {
    this.#rt = rt;
    this.#job = job;
    this.#state = state;
    this.cancel = cancel;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get leaseUntil(): JobContext['leaseUntil'] {
    return () => toWallTime(this.#rt.locks.leaseUntil(this.#job));
  }

  get progress(): JobContext['progress'] {
    return (value) => this.#rt.leases.updateProgress(this.#job.id, value);
  }

  get log(): JobContext['log'] {
    return (line) => this.#rt.leases.addLog(this.#job.id, line);
  }

  get moveToDelayed(): JobContext['moveToDelayed'] {
    return (until) => this.#moveToDelayed(until);
  }

  async #moveToDelayed(asked: DelayUntil): Promise<void> {
    const rt = this.#rt;
    const state = this.#state;
    const until = resolveUntil(asked);
    if (state.moved !== undefined) throw new InvalidArgumentError('moveToDelayed', 'the job was already moved');
    if (state.over || this.cancel.check().cancelled) throw new StaleError('the attempt is over; the job is no longer this handler\'s to move');
    // Stop extending first: after the move the job is not active, and a beat would read it as lost.
    rt.locks.untrack(this.#job);
    state.moved = delayJob(rt, this.#job, until);
    if ((await state.moved) !== 'ok') throw new StaleError('the lease was lost before the move landed');
  }

  get addChildren(): JobContext['addChildren'] {
    return (children) => this.#addChildren(children);
  }

  #addChildren(children: readonly FlowChild<unknown>[]): Promise<FlowResult[]> {
    if (this.#state.moved !== undefined) throw new InvalidArgumentError('addChildren', 'the job was already moved');
    return this.#rt.leases.addChildren(this.#job, children);
  }

  get moveToWaitingChildren(): JobContext['moveToWaitingChildren'] {
    return () => this.#moveToWaitingChildren();
  }

  async #moveToWaitingChildren(): Promise<boolean> {
    const rt = this.#rt;
    const state = this.#state;
    const job = this.#job;
    if (state.moved !== undefined) throw new InvalidArgumentError('moveToWaitingChildren', 'the job was already moved');
    if (state.over || this.cancel.check().cancelled) throw new StaleError('the attempt is over; the job is no longer this handler\'s to move');
    // Stop extending first, as for a delay: once it waits the job is not active and a beat would
    // read it as lost. With nothing open the job stays ours and is tracked again.
    rt.locks.untrack(job);
    // Marked moved at once, as a delay is, so a handler that returns without awaiting is not
    // completed over its own move; the mark is lifted when nothing was open or the call failed.
    const open = rt.leases.waitForChildren(job);
    state.moved = open.then(
      (): SettleOutcome => 'ok',
      (): SettleOutcome => 'stale',
    );
    let waiting: number;
    try {
      waiting = await open;
    } catch (error) {
      state.moved = undefined;
      rt.locks.track(job, this.cancel);
      throw error;
    }
    if (waiting > 0) return true;
    state.moved = undefined;
    rt.locks.track(job, this.cancel);
    return false;
  }

  get giveBack(): JobContext['giveBack'] {
    return () => this.#giveBack();
  }

  async #giveBack(): Promise<void> {
    const rt = this.#rt;
    const state = this.#state;
    if (state.moved !== undefined) throw new InvalidArgumentError('giveBack', 'the job was already moved');
    if (state.over || this.cancel.check().cancelled) throw new StaleError('the attempt is over; the job is no longer this handler\'s to give back');
    // Stop extending first, as for a delay: once back in the queue the job is not active.
    rt.locks.untrack(this.#job);
    state.moved = rt.leases.giveBack([this.#job]).then((given): SettleOutcome => (given.length === 1 ? 'ok' : 'stale'));
    if ((await state.moved) !== 'ok') throw new StaleError('the lease was lost before the job went back');
  }

  get childrenValues(): JobContext['childrenValues'] {
    return () => this.#rt.leases.childrenValues(this.#job.id);
  }
}
