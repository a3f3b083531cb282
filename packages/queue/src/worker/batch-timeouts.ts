import type { JobId } from '@echo/protocol/queue';
import type { ClaimedJob } from '../core/job.js';
import { JobTimeoutError } from './errors.js';
import type { JobContext, RunState } from './job-context.js';
import type { WorkerRuntime } from './runtime.js';
import { failJob } from './settle.js';

/** The member timers of one batch; {@link clear} them when the handler is done. */
export interface BatchTimers {
  /** Resolves once every member of the batch has run out of time: the handler is not awaited longer. */
  readonly allExpired: Promise<void>;
  readonly clear: () => void;
}

/**
 * Arms each member's own `timeoutMs` (per member, not one deadline for the batch): past it, that
 * member's signal aborts with a {@link JobTimeoutError} and the member fails with it at once,
 * retried or dead-lettered like any failure, whatever verdict the handler gives it later. The other
 * members wait for the handler as before. Answers `undefined` when no member has a time limit.
 */
export function armBatchTimeouts<T>(
  rt: WorkerRuntime<T>,
  jobs: readonly ClaimedJob<T>[],
  contexts: ReadonlyMap<JobId, JobContext>,
  states: ReadonlyMap<JobId, RunState>,
): BatchTimers | undefined {
  const timed = jobs.filter((job) => job.timeoutMs !== undefined);
  if (timed.length === 0) return undefined;
  let expired = 0;
  let resolveAll: () => void = () => undefined;
  const allExpired = new Promise<void>((resolve) => (resolveAll = resolve));
  const timers = timed.map((job) =>
    setTimeout(() => {
      const state = states.get(job.id);
      const context = contexts.get(job.id);
      if (!state || !context || state.over || state.moved !== undefined) return;
      const error = new JobTimeoutError(job.timeoutMs ?? 0);
      context.cancel.cancel(error.message, error);
      // Settled here and now, as a step's move is: the batch's settlement leaves it alone.
      state.moved = failJob(rt, job, error).then((outcome) => {
        rt.locks.untrack(job);
        if (outcome === 'scheduled' || outcome === 'dead') rt.events.fire('failed', { job, error, outcome });
        return outcome;
      });
      if (++expired === jobs.length) resolveAll();
    }, job.timeoutMs),
  );
  return { allExpired, clear: () => timers.forEach(clearTimeout) };
}
