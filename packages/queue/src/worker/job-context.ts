import { InvalidArgumentError, StaleError } from '@echo/protocol';
import { CancelToken } from './cancel.js';
import type { ClaimedJob } from '../job.js';
import type { WorkerRuntime } from './runtime.js';
import { delayJob, type Settled } from './settle.js';

/** What a handler gets besides the job: cancellation and the job's own side channels. */
export interface JobContext {
  /** Fired when the worker closes past its patience, the job's lease was lost, or its `timeoutMs` ran out. */
  readonly cancel: CancelToken;
  /** Aborted together with `cancel`, for APIs that take an `AbortSignal`. */
  readonly signal: AbortSignal;
  /** Records progress and publishes the `progress` event. */
  progress(value: string | number): Promise<void>;
  /** Appends a line to the job's log. */
  log(line: string): Promise<number>;
  /**
   * Settles the job as delayed, for `until` ms from the server's now or until a Date, without
   * counting a failure (the next claim runs it again, its attempts kept): a step job's way to wait.
   * The worker then leaves the job alone when the handler returns or throws; its return value is
   * dropped. Call it at most once, before the handler returns.
   * @throws InvalidArgumentError for a bad time, or a second move; StaleError when the lease was
   * lost (or the attempt timed out) before the move landed.
   */
  moveToDelayed(until: number | Date): Promise<void>;
}

/** What the worker learns from a run's context: whether the handler settled its own job. */
export interface RunState {
  /** Set once `moveToDelayed` was called: the settlement the handler asked for. */
  moved: Promise<Settled> | undefined;
  /** Set when the worker stopped waiting for the handler (it returned, threw or timed out). */
  over: boolean;
}

function checkUntil(until: number | Date): void {
  const ms = until instanceof Date ? until.getTime() : until;
  if (!Number.isSafeInteger(ms) || ms < 0) throw new InvalidArgumentError('until', 'must be a whole, non-negative delay in ms or a valid Date');
}

/** Builds the per-job context and tracks the job in the lock plane. */
export function jobContext<T>(rt: WorkerRuntime<T>, job: ClaimedJob<T>, state: RunState = { moved: undefined, over: false }): JobContext {
  const cancel = new CancelToken();
  rt.locks.track(job, cancel);
  return {
    cancel,
    get signal() {
      return cancel.signal;
    },
    progress: (value) => rt.queue.updateProgress(job.id, value),
    log: (line) => rt.queue.addLog(job.id, line),
    async moveToDelayed(until) {
      checkUntil(until);
      if (state.moved !== undefined) throw new InvalidArgumentError('moveToDelayed', 'the job was already moved');
      if (state.over || cancel.check().cancelled) throw new StaleError('the attempt is over; the job is no longer this handler\'s to move');
      // Stop extending first: after the move the job is not active, and a beat would read it as lost.
      rt.locks.untrack(job);
      state.moved = delayJob(rt, job, until);
      if ((await state.moved) !== 'ok') throw new StaleError('the lease was lost before the move landed');
    },
  };
}
